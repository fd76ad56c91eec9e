package dev.sluice.hazelcast;

import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.Config;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.CounterStore;
import dev.sluice.store.StoreHealth;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CounterStore} in a Hazelcast {@link IMap}, shared by every application instance that joins the cluster.
 *
 * <p>Each decision is one entry-processor call on the key ({@code executeOnKey}, or {@code submitToKey} for
 * {@link #applyAsync}): the member that owns the key reads its own time (see {@link #TIME_SOURCE_KEY}), runs
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

    private final HazelcastInstance instance;
    private final String mapName;
    /** Got on first use: a client that has not yet connected cannot make the proxy. */
    private volatile @Nullable IMap<String, CounterState> map;
    private final boolean ownsInstance;
    /** What {@link #health()} calls this store: how it reaches the cluster. */
    private final String mode;

    private HazelcastCounterStore(HazelcastInstance instance, String mapName, boolean ownsInstance, String mode) {
        CallbackExecutor.avoidThreadPerTask();
        this.instance = instance;
        this.mapName = mapName;
        this.ownsInstance = ownsInstance;
        this.mode = mode;
    }

    /**
     * Starts an embedded member as {@code options} say and returns the store on it; {@link #close()} shuts the member
     * down.
     *
     * @throws java.io.UncheckedIOException if the member's configuration file cannot be read
     */
    public static HazelcastCounterStore startMember(MemberOptions options) {
        HazelcastInstance member = Hazelcast.newHazelcastInstance(ClusterSetup.memberConfig(options));
        return new HazelcastCounterStore(member, options.store().mapName(), true, "hazelcast-member");
    }

    /**
     * Starts a client as {@code options} say, waits at most its start wait for the first connection, and returns the
     * store on it; {@link #close()} shuts the client down.
     *
     * @throws java.io.UncheckedIOException if the client's configuration file cannot be read
     */
    public static HazelcastCounterStore connectClient(ClientOptions options) {
        return new HazelcastCounterStore(ClusterSetup.startClient(options), options.store().mapName(), true,
                "hazelcast-client");
    }

    /**
     * The store on an instance (member or client) the application already has, adding the counters map's
     * configuration to its cluster unless the cluster has one for that name; {@link #close()} leaves the instance
     * running.
     */
    public static HazelcastCounterStore using(HazelcastInstance instance, StoreOptions options) {
        Objects.requireNonNull(instance, "instance");
        ClusterSetup.addMapConfig(instance, options);
        return new HazelcastCounterStore(instance, options.mapName(), false, "hazelcast-instance");
    }

    /** As {@link #using(HazelcastInstance, StoreOptions)} with {@link StoreOptions#defaults()}. */
    public static HazelcastCounterStore using(HazelcastInstance instance) {
        return using(instance, StoreOptions.defaults());
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        return map().executeOnKey(key, new ApplyProcessor(policy, cost, maxDelayNanos)).decision();
    }

    /**
     * Like {@link #apply}, completing when the owning member answers, on Hazelcast's default async executor (never a
     * partition or I/O thread; see {@code CallbackExecutor} for machines with two CPUs or fewer).
     */
    @Override
    public CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return map().submitToKey(key, new ApplyProcessor(policy, cost, maxDelayNanos))
                .thenApply(DecisionResult::decision);
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        return map().executeOnKey(key, new PeekProcessor(policy, cost)).decision();
    }

    @Override
    public CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        return map().submitToKey(key, new PeekProcessor(policy, cost))
                .thenApply(DecisionResult::decision);
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
     * The store's mode ({@code hazelcast-member}, {@code hazelcast-client} or {@code hazelcast-instance}) and the
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
        return new StoreHealth(mode, members, 0, 0, 0);
    }

    /** The number of keys in the cluster, counting expired keys Hazelcast has not yet removed. */
    public int size() {
        return map().size();
    }

    private IMap<String, CounterState> map() {
        IMap<String, CounterState> known = map;
        if (known == null) {
            known = instance.getMap(mapName);
            map = known;
        }
        return known;
    }

    /** The Hazelcast member or client this store talks through. */
    public HazelcastInstance instance() {
        return instance;
    }

    /** Shuts down the embedded member or the client this store started; leaves an instance it was given alone. */
    @Override
    public void close() {
        if (ownsInstance) {
            instance.shutdown();
        }
    }
}
