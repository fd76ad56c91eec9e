package dev.sluice.hazelcast;

import dev.sluice.Limit;
import dev.sluice.Policy;
import dev.sluice.algorithm.Algorithm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A rough measurement, not a test: decisions per second with 1 and 4 threads, and the latency of one decision, on a
 * two-member cluster in this JVM (so about half the keys are owned by the other member and cross loopback). Uses
 * cluster time, 10,000 keys under a token bucket of 1,000/s. Run it from the command line (see the README, Cluster, Measuring).
 */
public final class ClusterBenchmark {

    private static final Policy POLICY = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(1_000, Duration.ofSeconds(1)));
    private static final int KEYS = 10_000;

    private ClusterBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 5;
        String clusterName = ClusterSupport.newClusterName();
        List<Integer> ports = List.of(ClusterSupport.freePort(), ClusterSupport.freePort());
        List<HazelcastCounterStore> members = new ArrayList<>();
        for (int port : ports) {
            members.add(ClusterSupport.member(clusterName, port, ports).build());
        }
        try {
            ClusterSupport.awaitClusterSize(members.get(0).instance(), 2);
            HazelcastCounterStore store = members.get(0);
            run(store, 4, seconds, "warm-up");
            for (int threads : new int[] {1, 4}) {
                run(store, threads, seconds, threads + " thread(s)");
            }
        } finally {
            ClusterSupport.closeAll(members);
        }
    }

    private static void run(HazelcastCounterStore store, int threads, long seconds, String label) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<Future<long[]>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(pool.submit(() -> {
                long[] latencies = new long[1 << 20];
                int count = 0;
                while (System.nanoTime() < end && count < latencies.length) {
                    String key = "bench-" + ThreadLocalRandom.current().nextInt(KEYS);
                    long start = System.nanoTime();
                    store.apply(key, POLICY, 1, 0);
                    latencies[count++] = System.nanoTime() - start;
                }
                return Arrays.copyOf(latencies, count);
            }));
        }
        long[] all = new long[0];
        for (Future<long[]> result : results) {
            long[] part = result.get();
            long[] merged = Arrays.copyOf(all, all.length + part.length);
            System.arraycopy(part, 0, merged, all.length, part.length);
            all = merged;
        }
        pool.shutdown();
        Arrays.sort(all);
        System.out.printf("%s: %,d decisions in %d s = %,.0f/s; p50 %.1f us, p99 %.1f us%n", label,
                all.length, seconds, all.length / (double) seconds, all[all.length / 2] / 1e3,
                all[(int) (all.length * 0.99)] / 1e3);
    }
}
