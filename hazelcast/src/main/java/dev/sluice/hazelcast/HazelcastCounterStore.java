package dev.sluice.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.calls.ProcessorDecider;
import dev.sluice.hazelcast.internal.calls.Slices;
import dev.sluice.hazelcast.internal.cluster.ClusterWireVersion;
import dev.sluice.hazelcast.internal.cluster.KeySecret;
import dev.sluice.hazelcast.internal.cluster.KeySecretCheck;
import dev.sluice.hazelcast.internal.overrides.ClusterOverrides;
import dev.sluice.hazelcast.internal.permits.PermitCalls;
import dev.sluice.hazelcast.internal.settle.Reservations;
import dev.sluice.hazelcast.internal.sync.SyncedKeys;
import dev.sluice.hazelcast.internal.wire.MemberClock;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import dev.sluice.store.StoreServices;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CounterStore} in a Hazelcast {@link IMap}, shared by every application instance that joins the cluster.
 * Each decision runs atomically on the member that owns the key, on that member's clock ({@link #TIME_SOURCE_KEY}),
 * with one synchronous backup by default; hot keys of leased policies are granted from slices held on this node
 * ({@link StoreOptions#leasing()}), and decisions that wait on one key travel in one call
 * ({@link StoreOptions#batching()}).
 *
 * <p>Three entry points: {@link #startMember} starts an embedded member, {@link #connectClient} connects a client to an
 * existing cluster, {@link #using} takes an instance the application has. The store probes the members when it starts
 * and whenever a client (re)connects, and checks every member that joins; members that cannot run Sluice's processors
 * get what {@link StoreOptions#onIncompatibleMembers()} says: refuse, or decide here with a
 * {@link CompareAndSetCounterStore}, until the last of them leaves.
 *
 * <p>No key reaches the cluster in clear: each becomes its rule's scope and a keyed hash under the secret every
 * instance shares ({@link StoreOptions.Builder#keySecret}), and the texts that name keys (overrides, shared entries)
 * are sealed with it; an instance whose secret is not the cluster's other instances' does not start, or, found later,
 * fails every call, saying so at ERROR.
 *
 * <p>Calls block as long as Hazelcast takes (two minutes by default): wrap the store in a
 * {@link dev.sluice.store.FailurePolicyStore} to bound the wait. Thread-safe. Design: {@code docs/design/leasing.md},
 * {@code docs/design/batching.md}, {@code docs/design/wire-format.md}, {@code docs/design/compare-and-set.md}.
 */
public final class HazelcastCounterStore implements CounterStore {

    /**
     * The key under which a member's user context ({@link Config#getUserContext()}) may hold a {@link TimeSource}
     * for the decisions that member makes, instead of Hazelcast's cluster time. For tests and simulations; every
     * member of a cluster must then share one timeline.
     */
    public static final String TIME_SOURCE_KEY = MemberClock.TIME_SOURCE_KEY;

    /** The name of the counters map unless {@link StoreOptions.Builder#mapName} says otherwise. */
    public static final String DEFAULT_MAP_NAME = StoreOptions.DEFAULT_MAP_NAME;

    /** What the permits map's name adds to the counters map's. */
    public static final String PERMITS_MAP_SUFFIX = ".permits";

    /** What the overrides map's name adds to the counters map's. */
    public static final String OVERRIDES_MAP_SUFFIX = ClusterOverrides.MAP_SUFFIX;

    private static final System.Logger LOG = System.getLogger(HazelcastCounterStore.class.getName());

    private final HazelcastInstance instance;
    private final StoreOptions options;
    private final boolean ownsInstance;
    /** What its health calls this store: how it reaches the cluster. */
    private final String connection;
    /**
     * False, for a client, from a (dis)connection until the counters map's configuration is on the cluster: a call in
     * between would make the members create the map with Hazelcast's defaults (no size bound, no merge policy), for
     * good. Such a call fails at once instead, and the failure policy decides it.
     */
    private final AtomicBoolean mapConfigured;
    /** Whether a client is connected now (for the message of a call refused while the map is not configured). */
    private final AtomicBoolean connected;
    /** The listener following a given client's connections, removed on {@link #close()}; null otherwise. */
    private volatile @Nullable UUID connectionListener;
    /** The newest wire format version every member reads: a caller sends none newer. */
    private final ClusterWireVersion wireVersion;
    /** The members' processors: the decider while the members can run them. */
    private final ProcessorDecider processors;
    /** Who decides now: {@link #processors}, or what the options say while the members cannot run them. */
    private final DeciderChoice deciders;
    /** Concurrency permits, in a map of their own; see {@code docs/design/concurrency.md}. */
    private final PermitCalls permits;
    /** Reservations of a cost known when a request ends; see {@code docs/design/costs.md}. */
    private final Reservations reservations;
    /** Overrides of limits, in a map of their own, and this instance's copy. */
    private final ClusterOverrides overrides;
    /** What turns a counter key into its map key, and seals texts that name keys. */
    private final KeySecret keys;
    /** Whether the cluster's other instances hash with the same secret. */
    private final KeySecretCheck keysAgree;
    private final ClusterServices services;

    private HazelcastCounterStore(HazelcastInstance instance, StoreOptions options, boolean ownsInstance,
                                  String connection, AtomicBoolean mapConfigured, AtomicBoolean connected,
                                  MapWarnings mapWarnings) {
        this.instance = instance;
        this.options = options;
        this.ownsInstance = ownsInstance;
        this.connection = connection;
        this.mapConfigured = mapConfigured;
        this.connected = connected;
        this.wireVersion = new ClusterWireVersion(instance).following();
        TimeSource time = MemberClock.given(instance).orElseGet(TimeSource::system);
        this.processors = new ProcessorDecider(instance, options.mapName(),
                options.batching() ? Optional.of(new ProcessorDecider.Batching(options.maxBatch()))
                        : Optional.empty(),
                new ProcessorDecider.Leasing(time, options.leaseLifetime(), options.hotKeyRate(), options.maxSlice(),
                        StoreOptions.DEFAULT_MAX_LEASED_KEYS), options.leasing(),
                new ProcessorDecider.Syncing(time, options.syncInterval(), options.syncBudget(),
                        options.maxSyncedKeys()));
        this.deciders = new DeciderChoice(instance, options, processors, LOG);
        this.permits = new PermitCalls(instance, options.mapName() + PERMITS_MAP_SUFFIX, options.clientGrace());
        this.reservations = new Reservations(instance, options.mapName());
        this.keys = options.keySecret();
        this.keysAgree = new KeySecretCheck(instance, options.mapName(), keys, LOG);
        this.overrides = new ClusterOverrides(instance, options.mapName() + OVERRIDES_MAP_SUFFIX, time, keys);
        this.services = new ClusterServices(instance, options.mapName(), keys, overrides, this::mode, processors,
                permits, deciders, mapWarnings);
        if (instance.getLocalEndpoint() instanceof Member) {
            ClusterSetup.checkMapFormats(instance, options, mapWarnings);
        }
    }

    /**
     * {@code hazelcast-member}, {@code hazelcast-client} or {@code hazelcast-instance}, followed by
     * {@code compare-and-set} or {@code refused: incompatible members} when the members cannot run Sluice, or
     * {@code refused: key secret differs}.
     */
    private String mode() {
        return keysAgree.differs() ? connection + " refused: key secret differs" : deciders.mode(connection);
    }

    /**
     * Probes the members and compares key secrets now (see the class comment); closes the store when it refuses to
     * start.
     */
    private HazelcastCounterStore checkingMembers() {
        try {
            deciders.probe(true);
            keysAgree.check(true);
        } catch (IllegalStateException refused) {
            close();
            throw refused;
        }
        return watchingMembers();
    }

    /**
     * Checks each member from now on (after the start's probe, which may refuse to start), and says once when no key
     * secret is configured.
     */
    private HazelcastCounterStore watchingMembers() {
        deciders.follow();
        keysAgree.following();
        if (!keys.configured()) {
            LOG.log(System.Logger.Level.WARNING, "Sluice: no key secret is configured (init-param "
                    + "hazelcast-key-secret, StoreOptions.Builder.keySecret): counter keys reach the cluster hashed "
                    + "with a secret derived from the map name '" + options.mapName() + "', so anyone who can read "
                    + "the cluster's maps can test a guessed key (an address, a user name) against them. Give every "
                    + "instance the same secret of 32 random characters (openssl rand -base64 32); docs/cluster.md, "
                    + "the cluster's boundary.");
        }
        return this;
    }

    /**
     * After a client's (re)connection: probes the members, asks which wire format they read, and compares key
     * secrets (a cluster restarted whole has forgotten the fingerprint).
     */
    private void reconnected() {
        deciders.probe(false);
        wireVersion.ask();
        keysAgree.check(false);
    }

    /** The map key of counter key {@code key}: its rule's scope and a keyed hash ({@link KeySecret#mapKey}). */
    String mapKey(String key) {
        return keys.mapKey(key);
    }

    /**
     * The decider now, once the counters map's configuration is on the cluster, while the cluster's instances hash
     * with this one's key secret.
     */
    private CounterStore decider() {
        if (!mapConfigured.get()) {
            throw new IllegalStateException(connected.get() ? "Sluice: the counters map's configuration is not on the"
                    + " cluster yet after the client's connection" : "Sluice: the cluster is unreachable: the"
                    + " Hazelcast client is not connected to any member");
        }
        keysAgree.requireAgreed();
        return deciders.current();
    }

    /**
     * Starts an embedded member as {@code options} say and returns the store on it; {@link #close()} shuts the member
     * down.
     *
     * @throws java.io.UncheckedIOException if the member's configuration file cannot be read
     */
    public static HazelcastCounterStore startMember(MemberOptions options) {
        HazelcastInstance member = Hazelcast.newHazelcastInstance(options.toConfig());
        return new HazelcastCounterStore(member, options.store(), true, "hazelcast-member", new AtomicBoolean(true),
                new AtomicBoolean(true), new MapWarnings(LOG)).checkingMembers();
    }

    /**
     * Starts a client as {@code options} say, waits at most its start wait for the first connection, and returns the
     * store on it; {@link #close()} shuts the client down.
     *
     * @throws java.io.UncheckedIOException if the client's configuration file cannot be read
     */
    public static HazelcastCounterStore connectClient(ClientOptions options) {
        AtomicBoolean mapConfigured = new AtomicBoolean();
        AtomicBoolean connected = new AtomicBoolean();
        AtomicReference<@Nullable Runnable> afterConnection = new AtomicReference<>();
        MapWarnings mapWarnings = new MapWarnings(LOG);
        HazelcastCounterStore store = new HazelcastCounterStore(
                ClusterSetup.startClient(options, mapConfigured, connected, afterConnection, mapWarnings),
                options.store(), true, "hazelcast-client", mapConfigured, connected, mapWarnings);
        afterConnection.set(store::reconnected);
        // Not connected yet: the first connection probes, once the map's configuration is there.
        return mapConfigured.get() ? store.checkingMembers() : store.watchingMembers();
    }

    /**
     * The store on an instance (member or client) the application already has, adding the counters map's
     * configuration to its cluster unless the cluster has one for that name; {@link #close()} leaves the instance
     * running.
     */
    public static HazelcastCounterStore using(HazelcastInstance instance, StoreOptions options) {
        Objects.requireNonNull(instance, "instance");
        MapWarnings mapWarnings = new MapWarnings(LOG);
        ClusterSetup.addMapConfig(instance, options, mapWarnings);
        AtomicBoolean mapConfigured = new AtomicBoolean(true);
        AtomicBoolean connected = new AtomicBoolean(true);
        HazelcastCounterStore store = new HazelcastCounterStore(instance, options, false, "hazelcast-instance",
                mapConfigured, connected, mapWarnings);
        if (!(instance.getLocalEndpoint() instanceof Member)) {
            // A client reconnecting may reach a cluster that forgot the map's configuration, or other members.
            AtomicReference<@Nullable Runnable> afterConnection =
                    new AtomicReference<>(store::reconnected);
            store.connectionListener = instance.getLifecycleService().addLifecycleListener(
                    ClusterSetup.followConnections(() -> instance, options, mapConfigured, connected,
                            afterConnection, mapWarnings));
        }
        return store.checkingMembers();
    }

    /** As {@link #using(HazelcastInstance, StoreOptions)} with {@link StoreOptions#defaults()}. */
    public static HazelcastCounterStore using(HazelcastInstance instance) {
        return using(instance, StoreOptions.defaults());
    }

    /**
     * Executes on the key's owner, completing when it answers, on the Hazelcast thread that receives the answer: stages
     * chained to it without an executor run there, so chain work that may block or take long with an executor
     * ({@code thenApplyAsync(fn, executor)}). A count can be taken back (see {@code ProcessorDecider}); an estimate is
     * counted on the owner, one call, and settled there, one more ({@link Reservations}), leased and synchronised
     * policies too, exactly; a record is the caller's age of the request placed on the member's timeline; a permit is
     * recorded as this node's (member or client), so that the permits of a node that is gone are freed
     * ({@link PermitCalls}), and released by its id from any node; a reset deletes the key's entry (and its backup),
     * atomically with the decisions on that key, and its permits. In compare-and-set mode and while refusing, the
     * decider there executes it: counts are kept, an excess recorded and nothing given back, permits refused.
     */
    @Override
    @SuppressWarnings("unchecked") // each branch answers its command's own type
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        CounterStore decider = decider();
        String mapKey = mapKey(key);
        if (command instanceof Command.Reset) {
            R done = decider.execute(mapKey, command);
            permits.reset(mapKey);
            return CompletableFuture.completedFuture(done);
        }
        if (decider != processors) {
            return decider.executeAsync(mapKey, command);
        } else if (command instanceof Command.Estimate estimate) {
            return (CompletionStage<R>) reservations.estimateAsync(mapKey, estimate.policy(), estimate.cost(),
                    estimate.maxDelayNanos());
        } else if (command instanceof Command.Settle settle) {
            return (CompletionStage<R>) reservations.settleAsync(mapKey, settle.policy(), settle.estimate(),
                    settle.actual(), settle.id());
        } else if (command instanceof Command.Acquire acquire) {
            return (CompletionStage<R>) permits.acquireAsync(mapKey, acquire.limit());
        } else if (command instanceof Command.Release release) {
            return (CompletionStage<R>) permits.releaseAsync(mapKey, release.limit(), release.id());
        }
        return processors.executeAsync(mapKey, command);
    }

    /** A decision is the decider's own blocking call ({@code ProcessorDecider#execute}); anything else, joined. */
    @Override
    public <R> R execute(String key, Command<R> command) {
        return command instanceof Command.Decide ? decider().execute(mapKey(key), command)
                : CounterStore.super.execute(key, command);
    }

    /**
     * The concurrency permits held now over every key of the cluster (holds ended but not dropped yet included);
     * reads every entry, for tests and operators.
     */
    public long permitsHeld() {
        return permits.held();
    }

    /** The concurrency permits this member freed because their node was gone (0 on a client). */
    public long permitsFreedFromGoneNodes() {
        return permits.freedFromGoneNodes();
    }

    /**
     * The Java deserialization filter of the simple settings of {@link MemberOptions} and {@link ClientOptions}: only
     * JDK and Hazelcast classes, minus Hazelcast's built-in list of known gadget classes. Hazelcast still
     * Java-serializes the exceptions members send each other, which is why the JDK and Hazelcast stay allowed. Put it
     * in a configuration of your own with
     * {@code config.getSerializationConfig().setJavaSerializationFilterConfig(...)}.
     */
    public static JavaSerializationFilterConfig javaSerializationFilter() {
        return ClusterSetup.javaSerializationFilter();
    }

    /** The number of keys in the cluster, counting expired keys Hazelcast has not yet removed. */
    public int size() {
        return decider() instanceof CompareAndSetCounterStore onCallers ? onCallers.size() : processors.map().size();
    }

    /** How many calls carried more than one decision on one key, since the store started. */
    long batchesSent() {
        return processors.batchesSent();
    }

    /** This node's slices. */
    Slices leases() {
        return processors.slices();
    }

    /**
     * The longest a synchronisation message of this node has taken to be answered since the store started: the round
     * trip {@code d} in the synchronised mode's bound ({@code docs/design/synchronised.md}).
     */
    public Duration longestSyncRoundTrip() {
        return Duration.ofNanos(processors.syncs().longestRoundTripNanos());
    }

    /**
     * The budget this node gives a synchronised policy's keys now: the most permits of a key it admits before the key's
     * owner has counted them (the policy's own, else the store's, else the automatic one for the nodes it sees); see
     * {@code docs/design/synchronised.md}.
     */
    public long syncBudget(Policy policy) {
        return processors.syncs().budgetOf(policy);
    }

    /** This node's views of synchronised keys. */
    SyncedKeys syncs() {
        return processors.syncs();
    }

    /** The newest wire format version every member reads, as last found. */
    int clusterWireVersion() {
        return wireVersion.current();
    }

    /** Its overrides and shared entries in maps of the cluster, and its health ({@link ClusterServices}). */
    @Override
    public StoreServices services() {
        return services;
    }

    /** The Hazelcast member or client this store talks through. */
    public HazelcastInstance instance() {
        return instance;
    }

    /**
     * Gives this node's unused window slices back to their owners (waiting a few seconds at most), then shuts down the
     * embedded member or the client this store started; leaves an instance it was given alone.
     */
    @Override
    public void close() {
        processors.close();
        permits.close();
        overrides.close();
        wireVersion.stop();
        deciders.stop();
        keysAgree.stop();
        UUID listener = connectionListener;
        if (listener != null) {
            connectionListener = null;
            instance.getLifecycleService().removeLifecycleListener(listener);
        }
        if (ownsInstance) {
            instance.shutdown();
        }
    }
}
