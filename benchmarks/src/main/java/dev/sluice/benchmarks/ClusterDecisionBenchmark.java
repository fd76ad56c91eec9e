package dev.sluice.benchmarks;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.CompareAndSetCounterStore;
import dev.sluice.hazelcast.HazelcastCounterStore;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import java.time.Duration;
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
 * Distributed token-bucket decisions on a two-member cluster, Sluice's entry processor against Bucket4j's
 * (entry-processor proxy manager), and each one's compare-and-set mode for members without its classes (Sluice's
 * {@link CompareAndSetCounterStore}, Bucket4j's compare-and-swap proxy manager), on the same members and keys:
 * 10,000 keys of 1,000 per second, called through the member in the benchmark's JVM, so about half the calls go to
 * the other member over loopback. The other member is in this JVM or, with {@code topology=two-jvms}, in a process
 * of its own. Run with {@code -t 1}, {@code -t 4},
 * {@code -t 16}; throughput is reported in ops/µs unless run with {@code -bm thrpt -tu s} (ops/s), sample time gives
 * p50/p99/p99.9 in µs.
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class ClusterDecisionBenchmark {

    private static final int PERMITS_PER_SECOND = 1_000;

    @Param({"one-jvm", "two-jvms"})
    public String topology;

    private BenchmarkCluster cluster;
    private String[] keys;
    private HazelcastCounterStore sluice;
    private Policy policy;
    private ProxyManager<String> bucket4j;
    private CompareAndSetCounterStore sluiceCompareAndSet;
    private ProxyManager<String> bucket4jCompareAndSwap;
    private Supplier<BucketConfiguration> bucket4jConfig;

    @Setup
    public void startCluster() throws Exception {
        cluster = BenchmarkCluster.start(topology.equals("two-jvms"));
        keys = Keys.named(10_000);
        sluice = HazelcastCounterStore.using(cluster.local());
        policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(PERMITS_PER_SECOND, Duration.ofSeconds(1)));
        bucket4j = Bucket4jHazelcast.entryProcessorBasedBuilder(cluster.local().<String, byte[]>getMap("bucket4j"))
                .build();
        // A generous retry bound: the benchmark measures what a decision costs, not how often one gives up.
        sluiceCompareAndSet = new CompareAndSetCounterStore(cluster.local(), "sluice-cas", Duration.ofSeconds(10),
                CompareAndSetCounterStore.clusterTime(cluster.local()));
        bucket4jCompareAndSwap = Bucket4jHazelcast.casBasedBuilder(cluster.local().<String, byte[]>getMap(
                "bucket4j-cas")).build();
        BucketConfiguration configuration = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(PERMITS_PER_SECOND)
                        .refillGreedy(PERMITS_PER_SECOND, Duration.ofSeconds(1)))
                .build();
        bucket4jConfig = () -> configuration;
    }

    @TearDown
    public void stopCluster() throws Exception {
        sluice.close();
        cluster.close();
    }

    @Benchmark
    public boolean sluice(Keys.Cursor cursor) {
        return sluice.apply(keys[cursor.next(keys.length)], policy, 1, Long.MAX_VALUE).allowed();
    }

    @Benchmark
    public boolean bucket4j(Keys.Cursor cursor) {
        return bucket4j.getProxy(keys[cursor.next(keys.length)], bucket4jConfig).tryConsume(1);
    }

    @Benchmark
    public boolean sluiceCompareAndSet(Keys.Cursor cursor) {
        return sluiceCompareAndSet.apply(keys[cursor.next(keys.length)], policy, 1, Long.MAX_VALUE).allowed();
    }

    @Benchmark
    public boolean bucket4jCompareAndSwap(Keys.Cursor cursor) {
        return bucket4jCompareAndSwap.getProxy(keys[cursor.next(keys.length)], bucket4jConfig).tryConsume(1);
    }
}
