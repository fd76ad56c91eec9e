package dev.sluice.benchmarks;

import dev.sluice.Limit;
import dev.sluice.Policy;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.store.LocalCounterStore;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;

/**
 * Heap per key of the local store at 1,000,000 keys, for each algorithm with fixed-size state: the heap in use after
 * a full GC with the keys held, minus the heap before, divided by the number of keys. Keys look like
 * {@code per-ip|203.0.113.7} (about 20 characters), and their strings are counted: they are part of what a key costs.
 *
 * <p>Run: {@code java -Xmx4g -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.MemoryPerKey [keys]}
 */
public final class MemoryPerKey {

    private MemoryPerKey() {
    }

    public static void main(String[] args) {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        // A day-long period keeps every key from expiring during the measurement.
        Limit limit = Limit.of(100, Duration.ofDays(1));
        for (Algorithm algorithm : new Algorithm[] {Algorithm.TOKEN_BUCKET, Algorithm.GCRA, Algorithm.FIXED_WINDOW,
            Algorithm.SLIDING_WINDOW_COUNTER, Algorithm.SLIDING_WINDOW_LOG}) {
            Policy policy = Policy.of(algorithm, limit);
            long before = usedAfterGc();
            LocalCounterStore store = new LocalCounterStore(TimeSource.system(), keys + 1L);
            for (int i = 0; i < keys; i++) {
                store.apply("per-ip|" + (10 + i / 65_536 % 200) + "." + (i / 256 % 256) + "." + (i % 256) + ".7",
                        policy, 1, Long.MAX_VALUE);
            }
            long after = usedAfterGc();
            System.out.printf(Locale.ROOT, "%-24s %,d keys held: %.1f bytes per key%n", algorithm, store.size(),
                    (after - before) / (double) keys);
            store.close();
        }
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
