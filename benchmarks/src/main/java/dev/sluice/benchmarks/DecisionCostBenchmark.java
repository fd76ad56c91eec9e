package dev.sluice.benchmarks;

import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Where a local decision's time goes: reading the clock, and the token bucket's step alone on a synthetic clock
 * (100 ns between calls, so nearly every call is a rejection, as for a flooded key).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class DecisionCostBenchmark {

    private final TimeSource clock = TimeSource.system();
    private final Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(1_000, Duration.ofSeconds(1)));
    private long @Nullable [][] state;
    private long now = 1_767_225_600_000_000_000L;

    @Benchmark
    public long clockRead() {
        return clock.nanos();
    }

    @Benchmark
    public Transition tokenBucketStep() {
        now += 100;
        Transition transition = policy.apply(state, now, 1, 0);
        if (transition.changed()) {
            state = transition.state();
        }
        return transition;
    }
}
