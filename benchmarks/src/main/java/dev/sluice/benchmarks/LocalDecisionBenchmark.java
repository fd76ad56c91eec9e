package dev.sluice.benchmarks;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import dev.sluice.store.LocalCounterStore;
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
 * Local decisions per second for every algorithm, through {@link LocalCounterStore} on the system clock, with one
 * hot key or 10,000 keys, each limited to 1,000 per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class LocalDecisionBenchmark {

    @Param({"TOKEN_BUCKET", "LEAKY_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW_LOG", "SLIDING_WINDOW_COUNTER",
        "STEPPED_SLIDING_WINDOW", "GCRA"})
    public Algorithm algorithm;

    @Param({"1", "10000"})
    public int keyCount;

    private LocalCounterStore store;
    private Policy policy;
    private String[] keys;

    @Setup
    public void setUp() {
        store = new LocalCounterStore();
        policy = Policy.of(algorithm, Limit.of(1_000, Duration.ofSeconds(1)));
        keys = Keys.named(keyCount);
    }

    @Benchmark
    public Decision decide(Keys.Cursor cursor) {
        return store.execute(keys[cursor.next(keys.length)], Command.decide(policy, 1, Long.MAX_VALUE));
    }
}
