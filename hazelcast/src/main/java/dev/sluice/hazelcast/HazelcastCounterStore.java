package dev.sluice.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.Config;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.map.IMap;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.StoreHealth;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CounterStore} in a Hazelcast {@link IMap}, shared by every application instance that joins the cluster.
 *
 * <p>Each decision is one entry-processor call on the key ({@code executeOnKey}, or an asynchronous call for
 * {@link #applyAsync} and its siblings, {@code ProcessorCalls}): the member that owns the key reads its own time (see {@link #TIME_SOURCE_KEY}), runs
 * {@link Policy#apply} on the key's state and stores the result, atomically, then writes the computed state to one
 * synchronous backup (by default). Entries expire once their state is back to full capacity (their time to live is
 * set by the processor), and each member holds at most {@link StoreOptions#maxKeysPerMember()} keys (least recently
 * used keys are evicted first, forgetting what they had consumed). All values and processors use Hazelcast's
 * {@code IdentifiedDataSerializable}, registered by the jar itself: members need the Sluice jar on their class path
 * and nothing else.
 *
 * <p>Three ways to reach a cluster, one entry point each: {@link #startMember} starts an embedded member,
 * {@link #connectClient} connects as a client to an existing cluster, {@link #using} takes a {@link HazelcastInstance}
 * the application already has. The cluster set-up they share lives apart, in {@code ClusterSetup}.
 *
 * <p>Members without Sluice's classes (a plain or managed cluster), or with a release that cannot read this one's
 * wire format, cannot run the processors. So the store probes the members once when it starts and again whenever a
 * client (re)connects, and when they cannot, logs an ERROR naming the cause and the fix, then follows
 * {@link StoreOptions#onIncompatibleMembers()}: refuse (fail to start, or fail every call so the failure policy
 * decides), or decide on the callers with a {@link CompareAndSetCounterStore} in a map of its own.
 *
 * <p>With {@link StoreOptions#leasing()} on, hot keys of policies that ask for it ({@link Policy#leased()}) are
 * granted from slices this node takes from each key's owner, with no call per decision: see {@code HotKeyLeases} and
 * the README's Leasing for how, and for the bounds.
 *
 * <p>Calls block for as long as Hazelcast takes (its invocation timeout is two minutes by default): wrap the store
 * in a {@link dev.sluice.store.FailurePolicyStore} to bound the wait and decide what happens when the cluster fails.
 * Thread-safe.
 */
public final class HazelcastCounterStore implements CounterStore {

    /**
     * The key under which a member's user context ({@link Config#getUserContext()}) may hold a {@link TimeSource}
     * for the decisions that member makes, instead of Hazelcast's cluster time. For tests and simulations; every
     * member of a cluster must then share one timeline.
     */
    public static final String TIME_SOURCE_KEY = "dev.sluice.timeSource";

    /** The name of the counters map unless {@link StoreOptions.Builder#mapName} says otherwise. */
    public static final String DEFAULT_MAP_NAME = "sluice-counters";

    private static final System.Logger LOG = System.getLogger(HazelcastCounterStore.class.getName());

    /** Batched calls in flight on one key: one decided by the owner while the next gathers. */
    private static final int CALLS_IN_FLIGHT_PER_KEY = 2;

    /** How long a compatibility probe waits for the members' answer. */
    private static final Duration PROBE_WAIT = Duration.ofSeconds(5);

    /** Who decides: the members' entry processors, this instance with compare-and-set writes, or nobody. */
    private enum Decider { PROCESSORS, COMPARE_AND_SET, REFUSED }

    private final HazelcastInstance instance;
    private final StoreOptions options;
    /** Got on first use: a client that has not yet connected cannot make the proxy. */
    private volatile @Nullable IMap<String, CounterState> map;
    /** Made with {@link #map}. */
    private volatile @Nullable ProcessorCalls calls;
    private final boolean ownsInstance;
    /** What {@link #health()} calls this store: how it reaches the cluster. */
    private final String connection;
    private volatile Decider decider = Decider.PROCESSORS;
    /**
     * False, for a client, from a (dis)connection until the counters map's configuration is on the cluster: a call in
     * between would make the members create the map with Hazelcast's defaults (no size bound, no merge policy), for
     * good. Such a call fails at once instead, and the failure policy decides it.
     */
    private final AtomicBoolean mapConfigured;
    /** The listener following a given client's connections, removed on {@link #close()}; null otherwise. */
    private volatile @Nullable UUID connectionListener;
    /** Made when the members turn out to be incompatible and the options say to decide here instead. */
    private volatile @Nullable CompareAndSetCounterStore compareAndSet;
    /** What every member reads: batches go only to a cluster that reads them. */
    private final ClusterWireVersion wireVersion;
    /** Null when the options turn batching off. */
    private final @Nullable SameKeyBatcher batcher;
    /** Calls that carried more than one decision. */
    private final LongAdder batchesSent = new LongAdder();
    /** Null when the options leave leasing off. */
    private final @Nullable HotKeyLeases leases;

    private HazelcastCounterStore(HazelcastInstance instance, StoreOptions options, boolean ownsInstance,
                                  String connection, AtomicBoolean mapConfigured) {
        CallbackExecutor.avoidThreadPerTask();
        this.instance = instance;
        this.options = options;
        this.ownsInstance = ownsInstance;
        this.connection = connection;
        this.mapConfigured = mapConfigured;
        this.wireVersion = new ClusterWireVersion(instance).following();
        this.batcher = options.batching() ? new SameKeyBatcher(this::send, options.maxBatch(), CALLS_IN_FLIGHT_PER_KEY) : null;
        this.leases = options.leasing() ? new HotKeyLeases(new LeaseCalls(this::calls,
                this::withoutLeasing), localTime(instance), options)
                .sweeping() : null;
    }

    /** This process's clock for slices: a member's test time source when it has one, else the system's. */
    private static TimeSource localTime(HazelcastInstance instance) {
        return instance.getLocalEndpoint() instanceof Member
                && instance.getConfig().getUserContext().get(TIME_SOURCE_KEY) instanceof TimeSource given
                ? given : TimeSource.system();
    }

    /** Probes the members now; see the class comment. */
    private HazelcastCounterStore checkingMembers() {
        checkMembers(true);
        return this;
    }

    /** After a client's (re)connection: probes the members and asks which wire format they read. */
    private void reconnected() {
        checkMembers(false);
        wireVersion.ask();
    }

    private synchronized void checkMembers(boolean starting) {
        MemberCompatibility.Result result = MemberCompatibility.probe(this::map, PROBE_WAIT);
        switch (result.verdict()) {
            case COMPATIBLE -> {
                if (decider != Decider.PROCESSORS) {
                    decider = Decider.PROCESSORS;
                    LOG.log(System.Logger.Level.WARNING, "Sluice: the cluster's members run Sluice's entry processors"
                            + " again; decisions go to them (counting afresh in map ''{0}'')", options.mapName());
                }
            }
            case UNKNOWN -> LOG.log(System.Logger.Level.DEBUG, "Sluice: members not probed ({0}); a client probes "
                    + "again on its next connection", result.cause());
            case INCOMPATIBLE -> incompatible(result.cause(), starting);
        }
    }

    private void incompatible(String cause, boolean starting) {
        if (decider != Decider.PROCESSORS) {
            return; // already said, and already deciding as the options say
        }
        String problem = "Sluice: the Hazelcast members cannot run Sluice's entry processors (" + cause + "). Put "
                + "dev.sluice:sluice-hazelcast and dev.sluice:sluice-core, of this application's version, on every "
                + "member's class path (README: Running with your own Hazelcast cluster), or set "
                + "StoreOptions.onIncompatibleMembers(COMPARE_AND_SET) (init-param "
                + "hazelcast-incompatible-members=compare-and-set) to decide on the callers instead.";
        if (options.onIncompatibleMembers() == StoreOptions.OnIncompatibleMembers.COMPARE_AND_SET) {
            LOG.log(System.Logger.Level.ERROR, problem + " Deciding with compare-and-set writes in map ''{0}'' now.",
                    options.compareAndSetMapName());
            // On the members' timeline when they were given one (tests, simulations), as the processors would be.
            // (A client has no user context of its own.)
            TimeSource time = instance.getLocalEndpoint() instanceof Member
                    && instance.getConfig().getUserContext().get(TIME_SOURCE_KEY) instanceof TimeSource given
                    ? given : CompareAndSetCounterStore.clusterTime(instance);
            compareAndSet = new CompareAndSetCounterStore(instance, options.compareAndSetMapName(),
                    CompareAndSetCounterStore.DEFAULT_RETRY_TIMEOUT, time);
            decider = Decider.COMPARE_AND_SET;
            return;
        }
        LOG.log(System.Logger.Level.ERROR, problem + (starting ? " The store does not start."
                : " Every call fails until they can; the failure policy decides."));
        decider = Decider.REFUSED;
        if (starting) {
            close();
            throw new IllegalStateException(problem);
        }
    }

    private void requireMapConfigured() {
        if (!mapConfigured.get()) {
            throw new IllegalStateException("Sluice: the counters map's configuration is not on the cluster yet after"
                    + " the client's connection");
        }
    }

    /** The decider when the members' processors do not decide: the compare-and-set store, or a refusal. */
    private CounterStore elsewhere() {
        CompareAndSetCounterStore onCallers = compareAndSet;
        if (decider == Decider.COMPARE_AND_SET && onCallers != null) {
            return onCallers;
        }
        throw new IllegalStateException("Sluice: the Hazelcast members cannot run Sluice's entry processors; see the"
                + " ERROR logged when this was found");
    }

    /**
     * Starts an embedded member as {@code options} say and returns the store on it; {@link #close()} shuts the member
     * down.
     *
     * @throws java.io.UncheckedIOException if the member's configuration file cannot be read
     */
    public static HazelcastCounterStore startMember(MemberOptions options) {
        HazelcastInstance member = Hazelcast.newHazelcastInstance(ClusterSetup.memberConfig(options));
        return new HazelcastCounterStore(member, options.store(), true, "hazelcast-member", new AtomicBoolean(true))
                .checkingMembers();
    }

    /**
     * Starts a client as {@code options} say, waits at most its start wait for the first connection, and returns the
     * store on it; {@link #close()} shuts the client down.
     *
     * @throws java.io.UncheckedIOException if the client's configuration file cannot be read
     */
    public static HazelcastCounterStore connectClient(ClientOptions options) {
        AtomicBoolean mapConfigured = new AtomicBoolean();
        AtomicReference<@Nullable Runnable> afterConnection = new AtomicReference<>();
        HazelcastCounterStore store = new HazelcastCounterStore(
                ClusterSetup.startClient(options, mapConfigured, afterConnection), options.store(), true,
                "hazelcast-client", mapConfigured);
        afterConnection.set(store::reconnected);
        // Not connected yet: the first connection probes, once the map's configuration is there.
        return mapConfigured.get() ? store.checkingMembers() : store;
    }

    /**
     * The store on an instance (member or client) the application already has, adding the counters map's
     * configuration to its cluster unless the cluster has one for that name; {@link #close()} leaves the instance
     * running.
     */
    public static HazelcastCounterStore using(HazelcastInstance instance, StoreOptions options) {
        Objects.requireNonNull(instance, "instance");
        ClusterSetup.addMapConfig(instance, options);
        AtomicBoolean mapConfigured = new AtomicBoolean(true);
        HazelcastCounterStore store = new HazelcastCounterStore(instance, options, false, "hazelcast-instance",
                mapConfigured);
        if (!(instance.getLocalEndpoint() instanceof Member)) {
            // A client reconnecting may reach a cluster that forgot the map's configuration, or other members.
            AtomicReference<@Nullable Runnable> afterConnection =
                    new AtomicReference<>(store::reconnected);
            store.connectionListener = instance.getLifecycleService().addLifecycleListener(
                    ClusterSetup.followConnections(() -> instance, options, mapConfigured, afterConnection));
        }
        return store.checkingMembers();
    }

    /** As {@link #using(HazelcastInstance, StoreOptions)} with {@link StoreOptions#defaults()}. */
    public static HazelcastCounterStore using(HazelcastInstance instance) {
        return using(instance, StoreOptions.defaults());
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        requireMapConfigured();
        if (decider != Decider.PROCESSORS) {
            return elsewhere().apply(key, policy, cost, maxDelayNanos);
        }
        CompletableFuture<Decision> leased = leased(key, policy, cost);
        if (leased != null) {
            return await(leased);
        }
        SameKeyBatcher batching = batcherIfReadable();
        if (batching != null) {
            return await(batching.submit(key, policy, cost, maxDelayNanos));
        }
        return map().executeOnKey(key, new ApplyProcessor(policy, cost, maxDelayNanos)).decision();
    }

    /**
     * Like {@link #apply}, completing when the owning member answers, on the Hazelcast thread that receives the answer:
     * stages chained to it without an executor run there, so chain work that may block or take long with an executor
     * ({@code thenApplyAsync(fn, executor)}).
     */
    @Override
    public CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        requireMapConfigured();
        if (decider != Decider.PROCESSORS) {
            return elsewhere().applyAsync(key, policy, cost, maxDelayNanos);
        }
        CompletableFuture<Decision> leased = leased(key, policy, cost);
        return leased != null ? leased : unleased(key, policy, cost, maxDelayNanos);
    }

    /**
     * Like {@link #applyAsync}, on the key's owner ({@code CountProcessor}), answering the owner's time of the count,
     * by which a grant is taken back there ({@code UndoProcessor}, {@link Policy#undo}), whichever member owns the key
     * by then. Counted as {@link #applyAsync} counts, and kept ({@link Counted#kept}), while a member does not read
     * wire version 4, for a leased policy (its grants come from this node's slices) and in compare-and-set mode: a
     * request one rule rejects then stays counted by the others, as before. Never batched.
     */
    @Override
    public CompletionStage<Counted> countAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        requireMapConfigured();
        if (decider != Decider.PROCESSORS || policy.leased() || cost == 0
                || wireVersion.current() < WireFormat.UNDOS) {
            return applyAsync(key, policy, cost, maxDelayNanos).thenApply(Counted::kept);
        }
        return calls().submit(key, new CountProcessor(policy, cost, maxDelayNanos)).thenApply(answer ->
                !answer.decision().allowed() ? Counted.kept(answer.decision())
                        : Counted.undoable(answer.decision(), () -> calls()
                                .submit(key, new UndoProcessor(policy, cost, answer.countedAtNanos()))
                                .thenApply(DecisionResult::decision)));
    }

    /**
     * What {@link #applyAsync} does without leasing, for a request that waited for a slice in vain: the decider may
     * have changed meanwhile.
     */
    private CompletableFuture<Decision> withoutLeasing(String key, Policy policy, long cost) {
        return decider != Decider.PROCESSORS
                ? elsewhere().applyAsync(key, policy, cost, 0).toCompletableFuture()
                : unleased(key, policy, cost, 0);
    }

    /** The decision on the owner, batched when batching is on and every member reads batches. */
    private CompletableFuture<Decision> unleased(String key, Policy policy, long cost, long maxDelayNanos) {
        SameKeyBatcher batching = batcherIfReadable();
        if (batching != null) {
            return batching.submit(key, policy, cost, maxDelayNanos);
        }
        return calls().submit(key, new ApplyProcessor(policy, cost, maxDelayNanos))
                .thenApply(DecisionResult::decision);
    }

    /**
     * A decision from this node's slice of the key, or the call that takes a slice; null when the request goes to the
     * owner as without leasing (leasing off, a policy that does not ask for it, a key that is not hot, or a member
     * that does not read slices). Leasing algorithms do not queue, so the maximum delay plays no part.
     */
    private @Nullable CompletableFuture<Decision> leased(String key, Policy policy, long cost) {
        HotKeyLeases slices = leases;
        return slices != null && policy.leased() && wireVersion.current() >= WireFormat.LEASES
                ? slices.decide(key, policy, cost) : null;
    }

    /** The batcher, when batching is on and every member reads batches. */
    private @Nullable SameKeyBatcher batcherIfReadable() {
        return wireVersion.current() >= WireFormat.BATCHES ? batcher : null;
    }

    /**
     * One call on {@code key} for {@code requests}, completing each request's answer: a batch processor when there are
     * several and the members read it (they may have stopped since the requests were queued: a member of an older
     * release joined), else one processor each.
     */
    private CompletableFuture<?> send(String key, List<SameKeyBatcher.Request> requests) {
        if (requests.size() > 1 && wireVersion.current() >= WireFormat.BATCHES) {
            batchesSent.increment();
            return calls().submit(key, new BatchApplyProcessor(requests)).thenAccept(result -> {
                if (result.size() != requests.size()) {
                    throw new IllegalStateException("a batch of " + requests.size() + " got " + result.size()
                            + " decisions");
                }
                for (int i = 0; i < requests.size(); i++) {
                    SameKeyBatcher.Request request = requests.get(i);
                    request.answer().complete(result.decision(i, request.policy()));
                }
            });
        }
        CompletableFuture<?>[] calls = new CompletableFuture<?>[requests.size()];
        for (int i = 0; i < calls.length; i++) {
            SameKeyBatcher.Request request = requests.get(i);
            calls[i] = calls().submit(key,
                    new ApplyProcessor(request.policy(), request.cost(), request.maxDelayNanos()))
                    .whenComplete((result, failure) -> {
                        if (failure == null) {
                            request.answer().complete(result.decision());
                        } else {
                            request.answer().completeExceptionally(failure);
                        }
                    });
        }
        return calls.length == 1 ? calls[0] : CompletableFuture.allOf(calls);
    }

    /** Waits for a batched decision, throwing what the call threw, as an unbatched call does. */
    private static Decision await(CompletableFuture<Decision> answer) {
        try {
            return answer.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException thrown) {
                throw thrown;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        requireMapConfigured();
        if (decider != Decider.PROCESSORS) {
            return elsewhere().peek(key, policy, cost);
        }
        return map().executeOnKey(key, new PeekProcessor(policy, cost)).decision();
    }

    @Override
    public CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        requireMapConfigured();
        if (decider != Decider.PROCESSORS) {
            return elsewhere().peekAsync(key, policy, cost);
        }
        return calls().submit(key, new PeekProcessor(policy, cost))
                .thenApply(DecisionResult::decision);
    }

    /**
     * Counts a past request on the key's owner ({@code RecordProcessor}): the caller's age of the request, placed on
     * the member's timeline.
     */
    @Override
    public Decision record(String key, Policy policy, long cost, long ageNanos) {
        policy.algorithm().checkRecord(cost, ageNanos);
        requireMapConfigured();
        if (decider != Decider.PROCESSORS) {
            return elsewhere().record(key, policy, cost, ageNanos);
        }
        return map().executeOnKey(key, new RecordProcessor(policy, cost, ageNanos)).decision();
    }

    @Override
    public CompletionStage<Decision> recordAsync(String key, Policy policy, long cost, long ageNanos) {
        policy.algorithm().checkRecord(cost, ageNanos);
        requireMapConfigured();
        if (decider != Decider.PROCESSORS) {
            return elsewhere().recordAsync(key, policy, cost, ageNanos);
        }
        return calls().submit(key, new RecordProcessor(policy, cost, ageNanos)).thenApply(DecisionResult::decision);
    }

    /** Takes the earliest slot within {@code maxWaitNanos} on the key's owner ({@code ReserveProcessor}). */
    @Override
    public Decision reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        requireMapConfigured();
        if (decider != Decider.PROCESSORS) {
            return elsewhere().reserve(key, policy, cost, maxWaitNanos);
        }
        return map().executeOnKey(key, new ReserveProcessor(policy, cost, maxWaitNanos)).decision();
    }

    @Override
    public CompletionStage<Decision> reserveAsync(String key, Policy policy, long cost, long maxWaitNanos) {
        requireMapConfigured();
        if (decider != Decider.PROCESSORS) {
            return elsewhere().reserveAsync(key, policy, cost, maxWaitNanos);
        }
        return calls().submit(key, new ReserveProcessor(policy, cost, maxWaitNanos))
                .thenApply(DecisionResult::decision);
    }

    /** Deletes the key's entry (and its backup), atomically with the processors on that key. */
    @Override
    public void reset(String key) {
        requireMapConfigured();
        if (decider != Decider.PROCESSORS) {
            elsewhere().reset(key);
            return;
        }
        map().delete(key);
    }

    /**
     * The Java deserialization filter of the simple settings of {@link MemberOptions} and {@link ClientOptions}: only
     * JDK and Hazelcast classes, minus Hazelcast's built-in list of known gadget classes. Hazelcast still
     * Java-serializes the exceptions members send each other, which is why the JDK and Hazelcast stay allowed. Put it
     * in a configuration of your own with
     * {@code config.getSerializationConfig().setJavaSerializationFilterConfig(...)}.
     */
    public static JavaSerializationFilterConfig javaSerializationFilter() {
        return new JavaSerializationFilterConfig()
                .setWhitelist(new ClassFilter().addPrefixes("java.", "com.hazelcast."));
    }

    /**
     * The store's mode ({@code hazelcast-member}, {@code hazelcast-client} or {@code hazelcast-instance}, followed by
     * {@code compare-and-set} or {@code refused: incompatible members} when the members cannot run Sluice) and the
     * members its instance sees now: 0 once the instance has shut down, and for a client that lost its cluster.
     * Failure counts are kept by a {@link dev.sluice.store.FailurePolicyStore} in front of it.
     */
    @Override
    public StoreHealth health() {
        int members = 0;
        if (instance.getLifecycleService().isRunning()) {
            try {
                members = instance.getCluster().getMembers().size();
            } catch (RuntimeException e) {
                // A client between connections may refuse the question: it sees no member.
            }
        }
        String mode = switch (decider) {
            case PROCESSORS -> connection;
            case COMPARE_AND_SET -> connection + " compare-and-set";
            case REFUSED -> connection + " refused: incompatible members";
        };
        HotKeyLeases slices = leases;
        return new StoreHealth(mode, members, 0, 0, 0, slices == null ? 0 : slices.grantedFromSlices(),
                slices == null ? 0 : slices.heldPermits());
    }

    /** The number of keys in the cluster, counting expired keys Hazelcast has not yet removed. */
    public int size() {
        requireMapConfigured();
        CompareAndSetCounterStore onCallers = compareAndSet;
        return decider == Decider.COMPARE_AND_SET && onCallers != null ? onCallers.size() : map().size();
    }

    private IMap<String, CounterState> map() {
        IMap<String, CounterState> known = map;
        if (known == null) {
            known = instance.getMap(options.mapName());
            map = known;
        }
        return known;
    }

    private ProcessorCalls calls() {
        ProcessorCalls known = calls;
        if (known == null) {
            known = new ProcessorCalls(map());
            calls = known;
        }
        return known;
    }

    /** How many calls carried more than one decision, since the store started. */
    long batchesSent() {
        return batchesSent.sum();
    }

    /** This node's slices; null when leasing is off. */
    @Nullable HotKeyLeases leases() {
        return leases;
    }

    /** The newest wire format version every member reads, as last found. */
    int clusterWireVersion() {
        return wireVersion.current();
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
        HotKeyLeases slices = leases;
        if (slices != null && instance.getLifecycleService().isRunning()) {
            slices.close();
        }
        wireVersion.stop();
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
