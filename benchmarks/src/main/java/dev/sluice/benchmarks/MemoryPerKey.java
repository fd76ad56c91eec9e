package dev.sluice.benchmarks;

import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.hazelcast.StoreOptions;
import dev.sluice.store.Command;
import dev.sluice.store.LocalCounterStore;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Semaphore;

/**
 * Heap per key at 1,000,000 keys: of the local store, for each algorithm with fixed-size state, and of a Hazelcast
 * member's counters map (one member, so no backup copy; a cluster holds each key twice with the default backup). The
 * heap in use after a full GC with the keys held, minus the heap before, divided by the number of keys. Keys look like
 * {@code per-ip|10.0.0.7} (15 to 20 characters), and their strings are counted: they are part of what a key costs.
 *
 * <p>Run: {@code java -Xmx6g -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.MemoryPerKey [keys]}
 */
public final class MemoryPerKey {

    private MemoryPerKey() {
    }

    public static void main(String[] args) throws Exception {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        // A day-long period keeps every key from expiring during the measurement.
        Limit limit = Limit.of(100, Duration.ofDays(1));
        for (Algorithm algorithm : new Algorithm[] {Algorithm.TOKEN_BUCKET, Algorithm.GCRA, Algorithm.FIXED_WINDOW,
            Algorithm.SLIDING_WINDOW_COUNTER, Algorithm.SLIDING_WINDOW_LOG}) {
            Policy policy = Policy.of(algorithm, limit);
            long before = usedAfterGc();
            LocalCounterStore store = new LocalCounterStore(TimeSource.system(), keys + 1L);
            for (int i = 0; i < keys; i++) {
                store.execute(key(i), Command.decide(policy, 1, Long.MAX_VALUE));
            }
            long after = usedAfterGc();
            System.out.printf(Locale.ROOT, "local %-24s %,d keys held: %.1f bytes per key%n", algorithm,
                    store.size(), (after - before) / (double) keys);
            store.close();
        }
        hazelcast(keys, Policy.of(Algorithm.TOKEN_BUCKET, limit));
        synchronised(keys, Policy.of(Algorithm.TOKEN_BUCKET, limit).synchronised());
    }

    /**
     * A synchronised rule's keys on one member: first this node's views, each holding the one hit it admitted (sent at
     * the next interval; the interval here is a second, so most are still waiting), then, once every hit is merged,
     * the views with nothing waiting and the owner's shards (one member, so no backup copy).
     */
    private static void synchronised(int keys, Policy policy) throws Exception {
        try (BenchmarkCluster cluster = BenchmarkCluster.startOne();
             HazelcastCounterStore store = HazelcastCounterStore.using(cluster.local(), StoreOptions.builder()
                     .maxSyncedKeys(keys + 1).syncInterval(StoreOptions.MAX_SYNC_INTERVAL).build())) {
            long before = usedAfterGc();
            for (int i = 0; i < keys; i++) {
                store.execute(key(i), Command.decide(policy, 1, Long.MAX_VALUE));
            }
            long views = usedAfterGc();
            // Closing sends every hit waiting and keeps the views; the member keeps the shards.
            store.close();
            long merged = usedAfterGc();
            System.out.printf(Locale.ROOT, "synchronised views, hits waiting   %,d keys held: %.1f bytes per key%n",
                    keys, (views - before) / (double) keys);
            System.out.printf(Locale.ROOT, "synchronised views and the owner's shards: %.1f bytes per key%n",
                    (merged - before) / (double) keys);
        }
    }

    private static void hazelcast(int keys, Policy policy) throws Exception {
        try (BenchmarkCluster cluster = BenchmarkCluster.startOne();
             HazelcastCounterStore store = HazelcastCounterStore.using(cluster.local(),
                     StoreOptions.builder().maxKeysPerMember(2 * keys).build())) {
            long before = usedAfterGc();
            Semaphore inFlight = new Semaphore(256);
            for (int i = 0; i < keys; i++) {
                inFlight.acquire();
                store.executeAsync(key(i), Command.decide(policy, 1, Long.MAX_VALUE))
                        .whenComplete((decision, error) -> inFlight.release());
            }
            inFlight.acquire(256);
            long after = usedAfterGc();
            System.out.printf(Locale.ROOT, "hazelcast member TOKEN_BUCKET      %,d keys held: %.1f bytes per key%n",
                    store.size(), (after - before) / (double) keys);
        }
    }

    private static String key(int i) {
        return "per-ip|" + (10 + i / 65_536 % 200) + "." + (i / 256 % 256) + "." + (i % 256) + ".7";
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
