package dev.sluice.benchmarks;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.hazelcast.StoreOptions;
import dev.sluice.internal.state.Transition;
import dev.sluice.store.Command;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.DelayParameters;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * Admissions of synchronised rules against the exact count, per algorithm, on 2 and 3 nodes (two members in this JVM,
 * and a client as the third), eight threads per node, for three traces: {@code uniform} (each thread one request per
 * millisecond on one key), {@code bursty} (as fast as it can for 50 ms, then idle for 200 ms, on one key) and
 * {@code many-key} (as fast as it can, each request on one of 1,000 keys at random). A request's time is when its
 * decision returned (when an admitted one reaches what the limit protects; a request past the budget waits for the
 * owner), on the callers' clock; the nodes decide on their estimate of the owner's clock, Hazelcast's cluster time in
 * milliseconds, so the two are close, not bit-exact. The exact count is what the algorithm alone admits of the same
 * requests at those times, key by key. Beside each run: the stated bound of {@code docs/design/synchronised.md},
 * {@code (n - 1) * b} per key and period with the automatic budget b, summed over the run's keys and periods; the
 * over-admission the owners published (merged once the stores closed); for the leaky bucket, whose grants from a view
 * may come up to {@code (n - 1) * b} slots early, the exact queue accepting that delay; and Bucket4j's
 * {@code delaying()} (a token bucket) on the same trace against the exact token bucket.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.SyncAccuracyRun [seconds]
 * [permitsPerSecond]}
 */
public final class SyncAccuracyRun {

    private static final int THREADS_PER_NODE = 8;
    private static final int MANY_KEYS = 1_000;
    /** Bucket4j's unsynchronized tokens per node: as in {@link LeaseAccuracyRun}. */
    private static final int DELAYED_TOKENS = StoreOptions.DEFAULT_MAX_SLICE;
    private static final Duration PERIOD = Duration.ofSeconds(1);

    /** How a thread paces its requests, and which key each asks for. */
    private enum Trace {
        UNIFORM, BURSTY, MANY_KEY;

        String key() {
            return this == MANY_KEY ? "k" + ThreadLocalRandom.current().nextInt(MANY_KEYS) : "hot";
        }

        int keys() {
            return this == MANY_KEY ? MANY_KEYS : 1;
        }

        /** Waits, if the trace says so, before the request due at {@code elapsed} nanoseconds into the run. */
        void pace(long elapsedNanos, long requestsMade, long startNanos, TimeSource clock) {
            if (this == UNIFORM) {
                long due = startNanos + requestsMade * 1_000_000L;
                long wait = due - clock.nanos();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            } else if (this == BURSTY) {
                long inCycle = elapsedNanos % 250_000_000L;
                if (inCycle >= 50_000_000L) {
                    LockSupport.parkNanos(250_000_000L - inCycle);
                }
            }
        }
    }

    /** One node's way to ask: a key, answered allowed or not. */
    private interface Node {
        boolean ask(String key);
    }

    /** Every request: when, on which key, by which node, admitted or not. */
    private record Run(long[] times, String[] keys, int[] nodes, boolean[] admitted) {
        long admittedCount() {
            long count = 0;
            for (boolean one : admitted) {
                count += one ? 1 : 0;
            }
            return count;
        }
    }

    private SyncAccuracyRun() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        long permits = args.length > 1 ? Long.parseLong(args[1]) : 1_000;
        Limit limit = Limit.of(permits, PERIOD);
        Duration interval = StoreOptions.DEFAULT_SYNC_INTERVAL;
        try (BenchmarkCluster cluster = BenchmarkCluster.start(false)) {
            HazelcastInstance first = cluster.inThisJvm().get(0);
            ClientConfig clientConfig = new ClientConfig().setClusterName(first.getConfig().getClusterName());
            clientConfig.getNetworkConfig().addAddress("127.0.0.1:" + first.getCluster().getLocalMember().getAddress()
                    .getPort());
            clientConfig.setProperty("hazelcast.logging.type", "none");
            HazelcastProxyManager.addCustomSerializers(clientConfig.getSerializationConfig(), 10_000);
            HazelcastInstance client = HazelcastClient.newHazelcastClient(clientConfig);
            try {
                List<HazelcastInstance> all = List.of(first, cluster.inThisJvm().get(1), client);
                System.out.printf(Locale.ROOT,
                        "synchronised, %d threads per node, %d s per run, limit %s, interval %s%n",
                        THREADS_PER_NODE, seconds, limit, interval);
                for (int nodes = 2; nodes <= 3; nodes++) {
                    List<HazelcastInstance> instances = all.subList(0, nodes);
                    for (Trace trace : Trace.values()) {
                        for (Algorithm algorithm : Algorithm.values()) {
                            sluice(instances, trace, algorithm, limit, interval, seconds);
                        }
                        bucket4j(instances, trace, permits, seconds);
                    }
                }
            } finally {
                client.shutdown();
            }
        }
    }

    private static void sluice(List<HazelcastInstance> instances, Trace trace, Algorithm algorithm, Limit limit,
                               Duration interval, int seconds) throws Exception {
        Policy policy = Policy.of(algorithm, limit).synchronised();
        String map = "sync-accuracy-" + instances.size() + "-" + trace + "-" + algorithm;
        List<HazelcastCounterStore> stores = instances.stream().map(instance -> HazelcastCounterStore.using(
                instance, StoreOptions.builder().mapName(map).syncInterval(interval).build())).toList();
        Run run = run(instances.size(), seconds, trace, node -> key -> stores.get(node).execute(key,
                Command.decide(policy, 1, 0))
                .allowed());
        // The automatic budget: 1 % of the limit over the other nodes the stores see (the client included).
        long budget = stores.get(0).syncBudget(policy);
        long roundTrip = stores.stream().mapToLong(store -> store.longestSyncRoundTrip().toNanos()).max().orElse(0);
        stores.forEach(HazelcastCounterStore::close);
        long published = stores.stream().mapToLong(store -> store.services().health().cluster().synchronised()
                .overAdmitted().values().stream().mapToLong(Long::longValue).sum()).sum();
        long periods = Duration.ofSeconds(seconds).toNanos() / limit.period().toNanos() + 1;
        long bound = (instances.size() - 1) * budget * trace.keys() * periods;
        long exact = exact(Policy.of(algorithm, limit), run, 0);
        String reference = "";
        if (algorithm.queues()) {
            // A leaky bucket's grant from a view may come up to (n - 1) * b slots early: the exact queue with that
            // much delay accepted admits at least as many.
            long early = (instances.size() - 1) * budget * ceilDiv(limit.period().toNanos(), limit.permits());
            reference = String.format(Locale.ROOT, "  exact with %d slots' delay %,d", (instances.size() - 1) * budget,
                    exact(Policy.of(algorithm, limit), run, early));
        }
        report(String.format(Locale.ROOT, "%d nodes %-8s Sluice sync %s", instances.size(), trace, algorithm), run,
                exact, String.format(Locale.ROOT, "published %,6d  bound %,d (b %d, d %.1f ms)%s",
                        published, bound, budget, roundTrip / 1e6, reference));
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    private static void bucket4j(List<HazelcastInstance> instances, Trace trace, long permits, int seconds)
            throws Exception {
        BucketConfiguration configuration = BucketConfiguration.builder()
                .addLimit(bandwidth -> bandwidth.capacity(permits).refillGreedy(permits, PERIOD))
                .build();
        String map = "sync-accuracy-bucket4j-" + instances.size() + "-" + trace;
        List<Map<String, Bucket>> buckets = new ArrayList<>();
        List<ProxyManager<String>> proxies = new ArrayList<>();
        for (HazelcastInstance instance : instances) {
            proxies.add(Bucket4jHazelcast.entryProcessorBasedBuilder(instance.<String, byte[]>getMap(map)).build());
            buckets.add(new ConcurrentHashMap<>());
        }
        Run run = run(instances.size(), seconds, trace, node -> key -> buckets.get(node).computeIfAbsent(key,
                k -> proxies.get(node).builder().withOptimization(Optimizations.delaying(
                        new DelayParameters(DELAYED_TOKENS, Duration.ofMillis(10)))).build(k, () -> configuration))
                .tryConsume(1));
        report(String.format(Locale.ROOT, "%d nodes %-8s Bucket4j delaying(%d, 10ms)", instances.size(), trace,
                DELAYED_TOKENS), run, exact(Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(permits, PERIOD)), run, 0),
                String.format(Locale.ROOT, "documented +%d per key", instances.size() * DELAYED_TOKENS));
    }

    private static Run run(int nodes, int seconds, Trace trace, IntFunction<Node> nodeOf)
            throws Exception {
        TimeSource clock = TimeSource.system();
        ExecutorService pool = Executors.newFixedThreadPool(nodes * THREADS_PER_NODE);
        try {
            CountDownLatch start = new CountDownLatch(1);
            long[] startEnd = new long[2];
            List<Future<Run>> threads = new ArrayList<>();
            for (int node = 0; node < nodes; node++) {
                Node asking = nodeOf.apply(node);
                int nodeIndex = node;
                for (int t = 0; t < THREADS_PER_NODE; t++) {
                    threads.add(pool.submit(() -> {
                        start.await();
                        long[] times = new long[1 << 12];
                        String[] keys = new String[times.length];
                        boolean[] admitted = new boolean[times.length];
                        int count = 0;
                        for (long now = clock.nanos(); now < startEnd[1]; now = clock.nanos()) {
                            trace.pace(now - startEnd[0], count, startEnd[0], clock);
                            now = clock.nanos();
                            if (count == times.length) {
                                times = Arrays.copyOf(times, 2 * count);
                                keys = Arrays.copyOf(keys, 2 * count);
                                admitted = Arrays.copyOf(admitted, 2 * count);
                            }
                            String key = trace.key();
                            keys[count] = key;
                            admitted[count] = asking.ask(key);
                            // When the decision returned: when an admitted request reaches what the limit protects.
                            times[count] = clock.nanos();
                            count++;
                        }
                        int[] nodesOf = new int[count];
                        Arrays.fill(nodesOf, nodeIndex);
                        return new Run(Arrays.copyOf(times, count), Arrays.copyOf(keys, count), nodesOf,
                                Arrays.copyOf(admitted, count));
                    }));
                }
            }
            startEnd[0] = clock.nanos();
            startEnd[1] = startEnd[0] + Duration.ofSeconds(seconds).toNanos();
            start.countDown();
            List<Run> parts = new ArrayList<>();
            for (Future<Run> thread : threads) {
                parts.add(thread.get());
            }
            return merged(parts);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Every thread's requests, in time order. */
    private static Run merged(List<Run> parts) {
        int total = parts.stream().mapToInt(part -> part.times().length).sum();
        Integer[] order = new Integer[total];
        long[] times = new long[total];
        String[] keys = new String[total];
        int[] nodes = new int[total];
        boolean[] admitted = new boolean[total];
        int at = 0;
        for (Run part : parts) {
            for (int i = 0; i < part.times().length; i++, at++) {
                times[at] = part.times()[i];
                keys[at] = part.keys()[i];
                nodes[at] = part.nodes()[i];
                admitted[at] = part.admitted()[i];
                order[at] = at;
            }
        }
        Arrays.sort(order, (a, b) -> Long.compare(times[a], times[b]));
        Run sorted = new Run(new long[total], new String[total], new int[total], new boolean[total]);
        for (int i = 0; i < total; i++) {
            sorted.times()[i] = times[order[i]];
            sorted.keys()[i] = keys[order[i]];
            sorted.nodes()[i] = nodes[order[i]];
            sorted.admitted()[i] = admitted[order[i]];
        }
        return sorted;
    }

    /** What the algorithm alone admits of the run's requests, key by key, at the times they were made. */
    private static long exact(Policy policy, Run run, long maxDelayNanos) {
        Map<String, long[][]> states = new HashMap<>();
        long admitted = 0;
        for (int i = 0; i < run.times().length; i++) {
            Transition transition = policy.apply(states.get(run.keys()[i]), run.times()[i], 1, maxDelayNanos);
            admitted += transition.decision().allowed() ? 1 : 0;
            long[][] next = transition.state();
            if (next != null) {
                states.put(run.keys()[i], next);
            }
        }
        return admitted;
    }

    private static void report(String what, Run run, long exact, String bound) {
        long admitted = run.admittedCount();
        System.out.printf(Locale.ROOT, "%-52s requests %,10d  admitted %,8d  exact %,8d  over %,6d  under %,6d  %s%n",
                what, run.times().length, admitted, exact, Math.max(0, admitted - exact),
                Math.max(0, exact - admitted), bound);
    }
}
