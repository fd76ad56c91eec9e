package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.hazelcast.StoreOptions;
import dev.sluice.internal.state.Transition;
import dev.sluice.store.Command;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.DelayParameters;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Admissions of one hot key under leased slices against the exact count, per leasing algorithm, beside Bucket4j's
 * {@code Optimizations.delaying()} on the same cluster: two members in this JVM, eight threads on each asking as fast
 * as they can for a number of seconds. The exact count is what the algorithm alone admits of the same requests at the
 * times they were made (on the callers' clock; the owner reads Hazelcast's cluster time, in milliseconds, so the
 * reference is close, not bit-exact: an unleased run of each algorithm beside the leased one shows how close).
 * Over: admitted above exact; under: below. Bucket4j's documented bound for
 * {@code delaying(K, ...)} is an over-consumption of up to nodes x K once the limit is spent; Sluice's bounds are in
 * the README (Leasing).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.LeaseAccuracyRun [seconds]
 * [permitsPerSecond]}
 */
public final class LeaseAccuracyRun {

    private static final int THREADS_PER_MEMBER = 8;
    /** Bucket4j's unsynchronized tokens per node: Sluice's default largest slice. */
    private static final int DELAYED_TOKENS = StoreOptions.DEFAULT_MAX_SLICE;

    private LeaseAccuracyRun() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        long permits = args.length > 1 ? Long.parseLong(args[1]) : 2_000;
        Limit limit = Limit.of(permits, Duration.ofSeconds(1));
        try (BenchmarkCluster cluster = BenchmarkCluster.start(false)) {
            List<HazelcastInstance> members = cluster.inThisJvm();
            System.out.printf(Locale.ROOT, "one hot key, %d members x %d threads, %d s, limit %s%n", members.size(),
                    THREADS_PER_MEMBER, seconds, limit);
            for (Algorithm algorithm : Algorithm.values()) {
                if (!algorithm.leases()) {
                    continue;
                }
                for (boolean leasing : new boolean[] {false, true}) {
                    Policy policy = leasing ? Policy.of(algorithm, limit).leasing() : Policy.of(algorithm, limit);
                    List<HazelcastCounterStore> stores = members.stream().map(member -> HazelcastCounterStore.using(
                            member, StoreOptions.builder().mapName("accuracy-" + algorithm + "-" + leasing)
                                    .leasing(leasing).build())).toList();
                    Run run = run(stores.size(), seconds,
                            node -> () -> stores.get(node).execute("hot", Command.decide(policy, 1, 0)).allowed());
                    stores.forEach(HazelcastCounterStore::close);
                    report("Sluice " + (leasing ? "leased " : "unleased ") + algorithm, run,
                            exact(Policy.of(algorithm, limit), run.times));
                }
            }
            ProxyManager<String> bucket4j = Bucket4jHazelcast.entryProcessorBasedBuilder(
                    members.get(0).<String, byte[]>getMap("accuracy-bucket4j")).build();
            BucketConfiguration configuration = BucketConfiguration.builder()
                    .addLimit(bandwidth -> bandwidth.capacity(permits).refillGreedy(permits, Duration.ofSeconds(1)))
                    .build();
            List<io.github.bucket4j.Bucket> buckets = new ArrayList<>();
            for (int node = 0; node < members.size(); node++) {
                buckets.add(bucket4j.builder().withOptimization(Optimizations.delaying(
                        new DelayParameters(DELAYED_TOKENS, Duration.ofMillis(10)))).build("hot", () -> configuration));
            }
            Run run = run(members.size(), seconds, node -> () -> buckets.get(node).tryConsume(1));
            report("Bucket4j delaying(" + DELAYED_TOKENS + ", 10ms), bound +" + members.size() * DELAYED_TOKENS,
                    run, exact(Policy.of(Algorithm.TOKEN_BUCKET, limit), run.times));
        }
    }

    /** Admitted requests and the time of every request made. */
    private record Run(long admitted, long[] times) {
    }

    private static Run run(int nodes, int seconds, Function<Integer, BooleanSupplier> request) throws Exception {
        TimeSource clock = TimeSource.system();
        ExecutorService pool = Executors.newFixedThreadPool(nodes * THREADS_PER_MEMBER);
        try {
            CountDownLatch start = new CountDownLatch(1);
            long[] end = new long[1];
            List<Future<long[]>> threads = new ArrayList<>();
            for (int node = 0; node < nodes; node++) {
                BooleanSupplier ask = request.apply(node);
                for (int t = 0; t < THREADS_PER_MEMBER; t++) {
                    threads.add(pool.submit(() -> {
                        start.await();
                        long[] made = new long[1 << 16];
                        int count = 0;
                        long admitted = 0;
                        for (long now = clock.nanos(); now < end[0]; now = clock.nanos()) {
                            admitted += ask.getAsBoolean() ? 1 : 0;
                            if (count == made.length) {
                                made = Arrays.copyOf(made, 2 * count);
                            }
                            made[count++] = now;
                        }
                        long[] result = Arrays.copyOf(made, count + 1);
                        result[count] = admitted;
                        return result;
                    }));
                }
            }
            end[0] = clock.nanos() + Duration.ofSeconds(seconds).toNanos();
            start.countDown();
            long admitted = 0;
            List<long[]> made = new ArrayList<>();
            for (Future<long[]> thread : threads) {
                long[] result = thread.get();
                admitted += result[result.length - 1];
                made.add(Arrays.copyOf(result, result.length - 1));
            }
            long[] times = made.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            return new Run(admitted, times);
        } finally {
            pool.shutdownNow();
        }
    }

    /** What the algorithm alone admits of requests made at {@code times}, in order. */
    private static long exact(Policy policy, long[] times) {
        long[][] state = null;
        long admitted = 0;
        for (long time : times) {
            Transition transition = policy.apply(state, time, 1, 0);
            admitted += transition.decision().allowed() ? 1 : 0;
            state = transition.state();
        }
        return admitted;
    }

    private static void report(String what, Run run, long exact) {
        System.out.printf(Locale.ROOT, "%-50s requests %,10d  admitted %,8d  exact %,8d  over %,6d  under %,6d%n",
                what, run.times.length, run.admitted, exact, Math.max(0, run.admitted - exact),
                Math.max(0, exact - run.admitted));
    }
}
