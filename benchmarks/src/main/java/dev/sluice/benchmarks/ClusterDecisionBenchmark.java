package dev.sluice.benchmarks;

import com.hazelcast.map.IMap;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.CompareAndSetCounterStore;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.hazelcast.StoreOptions;
import dev.sluice.store.Command;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.RejectionCachingStore;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.DelayParameters;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Distributed token-bucket decisions on a two-member cluster, on the same members and keys: Sluice's entry processor
 * with same-key batching (the default) and without, the synchronised mode ({@code sluiceSynced}, the same token bucket
 * decided first from this node's view, with the automatic budget),
 * Bucket4j's entry-processor proxy manager plain and with {@code Optimizations.batching()}, each one's compare-and-set
 * mode for members without its classes (Sluice's {@link CompareAndSetCounterStore}, Bucket4j's compare-and-swap proxy
 * manager), and the floor: a bare processor that increments a {@code Long} ({@link IncrementProcessor}). Beside them,
 * for one hot key: Sluice with leased slices ({@code sluiceLeased}, {@link StoreOptions#leasing}) against Bucket4j's
 * {@code Optimizations.delaying()} with as many unsynchronized tokens as Sluice's largest slice ({@code
 * bucket4jDelaying}), and the local store ({@code local}), whose p50 a decision from a slice is held against; and
 * Sluice behind the servlet filter's default {@link RejectionCachingStore} ({@code sluiceRejectionCache}). Calls go
 * through the member in the benchmark's JVM, so about half go to the other member over loopback; that member is in this
 * JVM or, with {@code topology=two-jvms}, in a process of its own.
 *
 * <p>Workloads: {@code 10k-keys}, 10,000 keys of 1,000 per second walked by every thread; {@code hot-grants}, one key
 * whose limit never runs out, so every call is a grant (a state write and a backup); {@code hot-exceeded}, one key of
 * 1,000 per second, so most calls are rejections. Run with {@code -t 1}, {@code -t 4}, {@code -t 16}; throughput is
 * reported in ops/µs unless run with {@code -bm thrpt -tu s} (ops/s), sample time gives p50/p99/p99.9 in µs.
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class ClusterDecisionBenchmark {

    private static final int PERMITS_PER_SECOND = 1_000;
    /** Permits per hour that no run spends (Bucket4j refills at most one token per nanosecond): every call a grant. */
    private static final long NEVER_RUNS_OUT = 1_000_000_000_000L;

    @Param({"one-jvm", "two-jvms"})
    public String topology;

    @Param({"10k-keys", "hot-grants", "hot-exceeded"})
    public String workload;

    /**
     * The leased store's largest slice ({@link StoreOptions#maxSlice()}), and the tokens {@code bucket4jDelaying} lets
     * a node take unsynchronized; the other benchmarks ignore it.
     */
    @Param({"64"})
    public int maxSlice;

    private BenchmarkCluster cluster;
    private String[] keys;
    private HazelcastCounterStore sluice;
    private HazelcastCounterStore sluiceUnbatched;
    private HazelcastCounterStore sluiceSynced;
    /** {@link #policy}, synchronised. */
    private Policy syncedPolicy;
    private HazelcastCounterStore sluiceLeased;
    /** As the servlet filter composes a provider's store: its rejections repeated until their retry-after. */
    private RejectionCachingStore sluiceRejectionCache;
    private Policy leasedPolicy;
    private LocalCounterStore local;
    private final ConcurrentHashMap<String, Bucket> bucket4jDelaying = new ConcurrentHashMap<>();
    private IMap<String, Long> floor;
    /** Bucket4j's batching merges the calls made on one proxy: each key's proxy is made once and shared. */
    private final ConcurrentHashMap<String, Bucket> bucket4jBatching = new ConcurrentHashMap<>();
    private Policy policy;
    private ProxyManager<String> bucket4j;
    private CompareAndSetCounterStore sluiceCompareAndSet;
    private ProxyManager<String> bucket4jCompareAndSwap;
    private Supplier<BucketConfiguration> bucket4jConfig;

    @Setup
    public void startCluster() throws Exception {
        cluster = BenchmarkCluster.start(topology.equals("two-jvms"));
        keys = workload.equals("10k-keys") ? Keys.named(10_000) : new String[] {"hot"};
        boolean grantsOnly = workload.equals("hot-grants");
        long permits = grantsOnly ? NEVER_RUNS_OUT : PERMITS_PER_SECOND;
        Duration period = grantsOnly ? Duration.ofHours(1) : Duration.ofSeconds(1);
        sluice = HazelcastCounterStore.using(cluster.local());
        sluiceUnbatched = HazelcastCounterStore.using(cluster.local(), StoreOptions.builder().mapName("unbatched")
                .batching(false).build());
        sluiceSynced = HazelcastCounterStore.using(cluster.local(), StoreOptions.builder().mapName("synced").build());
        sluiceRejectionCache = new RejectionCachingStore(HazelcastCounterStore.using(cluster.local(),
                StoreOptions.builder().mapName("rejection-cache").build()), TimeSource.system(),
                RejectionCachingStore.DEFAULT_MAX_ENTRIES);
        floor = cluster.local().getMap(BenchmarkCluster.FLOOR_MAP);
        policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(permits, period));
        leasedPolicy = policy.leasing();
        syncedPolicy = policy.synchronised();
        sluiceLeased = HazelcastCounterStore.using(cluster.local(), StoreOptions.builder().mapName("leased")
                .leasing(true).maxSlice(maxSlice).build());
        local = new LocalCounterStore();
        bucket4j = Bucket4jHazelcast.entryProcessorBasedBuilder(cluster.local().<String, byte[]>getMap("bucket4j"))
                .build();
        // A generous retry bound: the benchmark measures what a decision costs, not how often one gives up.
        sluiceCompareAndSet = new CompareAndSetCounterStore(cluster.local(), "sluice-cas", Duration.ofSeconds(10),
                CompareAndSetCounterStore.clusterTime(cluster.local()));
        bucket4jCompareAndSwap = Bucket4jHazelcast.casBasedBuilder(cluster.local().<String, byte[]>getMap(
                "bucket4j-cas")).build();
        BucketConfiguration configuration = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(permits).refillGreedy(permits, period))
                .build();
        bucket4jConfig = () -> configuration;
    }

    @TearDown
    public void stopCluster() throws Exception {
        sluice.close();
        sluiceUnbatched.close();
        sluiceSynced.close();
        sluiceLeased.close();
        sluiceRejectionCache.close();
        local.close();
        cluster.close();
    }

    @Benchmark
    public boolean sluice(Keys.Cursor cursor) {
        return sluice.execute(keys[cursor.next(keys.length)], Command.decide(policy, 1, Long.MAX_VALUE)).allowed();
    }

    @Benchmark
    public boolean sluiceUnbatched(Keys.Cursor cursor) {
        return sluiceUnbatched.execute(keys[cursor.next(keys.length)], Command.decide(policy, 1,
                Long.MAX_VALUE)).allowed();
    }

    @Benchmark
    public boolean sluiceSynced(Keys.Cursor cursor) {
        return sluiceSynced.execute(keys[cursor.next(keys.length)], Command.decide(syncedPolicy, 1, 0)).allowed();
    }

    @Benchmark
    public boolean sluiceRejectionCache(Keys.Cursor cursor) {
        return sluiceRejectionCache.execute(keys[cursor.next(keys.length)], Command.decide(policy, 1,
                Long.MAX_VALUE)).allowed();
    }

    @Benchmark
    public boolean sluiceLeased(Keys.Cursor cursor) {
        return sluiceLeased.execute(keys[cursor.next(keys.length)], Command.decide(leasedPolicy, 1, 0)).allowed();
    }

    @Benchmark
    public boolean local(Keys.Cursor cursor) {
        return local.execute(keys[cursor.next(keys.length)], Command.decide(policy, 1, 0)).allowed();
    }

    /** Up to {@link #maxSlice} tokens per node unsynchronized for up to 10 ms, as Sluice's leased slices. */
    @Benchmark
    public boolean bucket4jDelaying(Keys.Cursor cursor) {
        return bucket4jDelaying.computeIfAbsent(keys[cursor.next(keys.length)], key -> bucket4j.builder()
                .withOptimization(Optimizations.delaying(new DelayParameters(maxSlice,
                        Duration.ofMillis(10)))).build(key, bucket4jConfig)).tryConsume(1);
    }

    @Benchmark
    public long floor(Keys.Cursor cursor) {
        return floor.executeOnKey(keys[cursor.next(keys.length)], new IncrementProcessor());
    }

    @Benchmark
    public boolean bucket4jBatching(Keys.Cursor cursor) {
        return bucket4jBatching.computeIfAbsent(keys[cursor.next(keys.length)], key -> bucket4j.builder()
                .withOptimization(Optimizations.batching()).build(key, bucket4jConfig)).tryConsume(1);
    }

    @Benchmark
    public boolean bucket4j(Keys.Cursor cursor) {
        return bucket4j.getProxy(keys[cursor.next(keys.length)], bucket4jConfig).tryConsume(1);
    }

    @Benchmark
    public boolean sluiceCompareAndSet(Keys.Cursor cursor) {
        return sluiceCompareAndSet.execute(keys[cursor.next(keys.length)], Command.decide(policy, 1,
                Long.MAX_VALUE)).allowed();
    }

    @Benchmark
    public boolean bucket4jCompareAndSwap(Keys.Cursor cursor) {
        return bucket4jCompareAndSwap.getProxy(keys[cursor.next(keys.length)], bucket4jConfig).tryConsume(1);
    }
}
