package dev.sluice.benchmarks;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import dev.sluice.store.LocalCounterStore;
import java.time.Duration;
import java.util.Locale;

/**
 * A rough single-thread figure per algorithm: decisions per second through the local store, for one hot key and for
 * 10,000 keys, on the system clock. A smoke figure only; the JMH benchmarks are the measurements.
 *
 * <p>Run from the project root:
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.QuickDecisionLoop
 * </pre>
 */
public final class QuickDecisionLoop {

    private static final int DECISIONS = 3_000_000;

    private QuickDecisionLoop() {
    }

    public static void main(String[] args) {
        Limit limit = Limit.of(1_000, Duration.ofSeconds(1));
        String[] keys = Keys.named(10_000);
        System.out.printf("%-24s %14s %14s %10s%n", "algorithm", "1 key dec/s", "10k keys dec/s", "granted %");
        for (Algorithm algorithm : Algorithm.values()) {
            Policy policy = Policy.of(algorithm, limit);
            run(policy, new String[] {"hot"});
            run(policy, keys);
            double[] hot = run(policy, new String[] {"hot"});
            double[] spread = run(policy, keys);
            System.out.printf(Locale.ROOT, "%-24s %,14.0f %,14.0f %9.2f%%%n", algorithm, hot[0], spread[0],
                    hot[1] * 100);
        }
    }

    /** Returns decisions per second and the fraction granted. */
    private static double[] run(Policy policy, String[] keys) {
        LocalCounterStore store = new LocalCounterStore();
        long granted = 0;
        long start = System.nanoTime();
        for (int i = 0; i < DECISIONS; i++) {
            Decision decision = store.execute(keys[i % keys.length], Command.decide(policy, 1, Long.MAX_VALUE));
            if (decision.allowed()) {
                granted++;
            }
        }
        long elapsed = System.nanoTime() - start;
        return new double[] {DECISIONS * 1e9 / elapsed, (double) granted / DECISIONS};
    }
}
