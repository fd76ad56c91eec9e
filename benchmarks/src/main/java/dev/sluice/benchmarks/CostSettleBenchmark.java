package dev.sluice.benchmarks;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * A reservation of a cost in tokens and its settle (issue 34) against one decision of the same cost on the same store:
 * on the local store ({@code localReserveSettle} against {@code localOneDecision}: the target is at most twice its
 * time) and on a two-member cluster ({@code clusterReserveSettle}, one call to the key's owner to reserve and one to
 * settle, against {@code clusterOneDecision}, one call; the other member in this JVM or, with
 * {@code topology=two-jvms}, in a process of its own). Each thread walks 1,000 keys, so about half of a cluster's calls
 * go to the other member over loopback; a reservation of 100 tokens settles at 40 and 160 in turn (a give-back, then a
 * debt), on limits no run spends. {@code algorithm} is the policy's. Run with {@code -t 1}, {@code -t 4},
 * {@code -t 16}.
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CostSettleBenchmark {

    private static final int KEYS = 1_000;
    private static final long ESTIMATE = 100;
    /**
     * Tokens per second that no run spends, whatever it owes; small enough that the algorithms' arithmetic stays in
     * {@code long} (a limit whose permits times its period in nanoseconds overflows a {@code long} takes the exact
     * slow path, microseconds a decision, as {@code 10^12} an hour would).
     */
    private static final long NEVER_RUNS_OUT = 1_000_000_000L;

    /** The policy, in tokens. */
    @State(Scope.Benchmark)
    public static class Tokens {
        @Param({"TOKEN_BUCKET", "SLIDING_WINDOW_COUNTER"})
        public String algorithm;

        private Policy policy;

        @Setup
        public void make() {
            policy = Policy.of(Algorithm.valueOf(algorithm), Limit.of(NEVER_RUNS_OUT, Duration.ofSeconds(1)))
                    .inUnit("tokens");
        }
    }

    /** A thread's walk over the keys, and whether its next settle is below or above the estimate. */
    @State(Scope.Thread)
    public static class Walk {
        private final String[] keys = new String[KEYS];
        private int next;

        @Setup
        public void make() {
            String thread = Long.toString(Thread.currentThread().getId());
            for (int i = 0; i < KEYS; i++) {
                keys[i] = "cost-" + thread + "-" + i;
            }
        }

        String key() {
            next++;
            return keys[next % KEYS];
        }

        /** For each key, 40 and 160 in turn (a give-back of 60, then a debt of 60): one walk over the keys each. */
        long actual() {
            return (next / KEYS & 1) == 0 ? 40 : 160;
        }
    }

    @Benchmark
    public boolean localOneDecision(LocalStore local, Tokens tokens, Walk walk) {
        return local.store.execute(walk.key(), Command.decide(tokens.policy, ESTIMATE, 0)).allowed();
    }

    @Benchmark
    public long localReserveSettle(LocalStore local, Tokens tokens, Walk walk) {
        return reserveAndSettle(local.store, tokens, walk);
    }

    /**
     * A reservation of {@value #ESTIMATE} tokens and its settle, both awaited, as the rules make them (the reservation
     * through {@link CounterStore#execute}, as one decision is); what remains after.
     */
    private static long reserveAndSettle(CounterStore store, Tokens tokens, Walk walk) {
        Counted reserved = store.execute(walk.key(), Command.estimate(tokens.policy, ESTIMATE, 0));
        return reserved.settle(walk.actual()).toCompletableFuture().join().remaining();
    }

    @Benchmark
    public boolean clusterOneDecision(TwoMembers cluster, Tokens tokens, Walk walk) {
        return cluster.store.execute(walk.key(), Command.decide(tokens.policy, ESTIMATE, 0)).allowed();
    }

    @Benchmark
    public long clusterReserveSettle(TwoMembers cluster, Tokens tokens, Walk walk) {
        return reserveAndSettle(cluster.store, tokens, walk);
    }
}
