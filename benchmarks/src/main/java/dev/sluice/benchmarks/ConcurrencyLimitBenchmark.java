package dev.sluice.benchmarks;

import com.alibaba.csp.sentinel.Entry;
import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import com.alibaba.csp.sentinel.slots.block.RuleConstant;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRule;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRuleManager;
import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A concurrency permit taken and released (issue 26): on the local store ({@code local}) beside two rate-limit
 * decisions on it ({@code localTwoRateDecisions}, the budget an acquire plus release must stay within), and on a
 * two-member cluster ({@code cluster}: one call to the key's owner each way, about half of them to the other member
 * over loopback; that member in this JVM or, with {@code topology=two-jvms}, in a process of its own). One key of
 * 1,000,000 permits, so every acquisition is granted whatever the threads; run with {@code -t 1}, {@code -t 4},
 * {@code -t 16}. Beside them, the same permit taken and released in this JVM by Resilience4j's semaphore
 * {@code Bulkhead} ({@code resilience4jBulkhead}) and by Sentinel's thread-count flow rule ({@code sentinelThreads}):
 * both per JVM only.
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ConcurrencyLimitBenchmark {

    private static final ConcurrencyLimit PLENTY = ConcurrencyLimit.of(ConcurrencyLimit.MAX_PERMITS);
    private static final Policy RATE = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(1_000_000_000L,
            Duration.ofSeconds(1)));

    /** Resilience4j's semaphore bulkhead and a Sentinel resource with a thread-count flow rule, of as many permits. */
    @State(Scope.Benchmark)
    public static class Peers {
        private static final String RESOURCE = "sluice-benchmark";
        private final Bulkhead bulkhead = Bulkhead.of("benchmark", BulkheadConfig.custom()
                .maxConcurrentCalls((int) ConcurrencyLimit.MAX_PERMITS).maxWaitDuration(Duration.ZERO).build());

        @Setup
        public void start() {
            FlowRule rule = new FlowRule(RESOURCE);
            rule.setGrade(RuleConstant.FLOW_GRADE_THREAD);
            rule.setCount(ConcurrencyLimit.MAX_PERMITS);
            FlowRuleManager.loadRules(List.of(rule));
        }
    }

    @Benchmark
    public boolean local(LocalStore local) {
        Counted held = local.store.executeAsync("k", Command.acquire(PLENTY)).toCompletableFuture().join();
        held.giveBack();
        return held.decision().allowed();
    }

    @Benchmark
    public boolean localTwoRateDecisions(LocalStore local) {
        return local.store.execute("r1", Command.decide(RATE, 1, 0)).allowed() & local.store.execute("r2",
                Command.decide(RATE, 1, 0)).allowed();
    }

    @Benchmark
    public boolean resilience4jBulkhead(Peers peers) {
        if (!peers.bulkhead.tryAcquirePermission()) {
            return false;
        }
        peers.bulkhead.onComplete();
        return true;
    }

    @Benchmark
    public boolean sentinelThreads() {
        try (Entry entry = SphU.entry(Peers.RESOURCE)) {
            return entry != null;
        } catch (BlockException rejected) {
            return false;
        }
    }

    @Benchmark
    public boolean cluster(TwoMembers cluster) {
        Counted held = cluster.store.executeAsync("k", Command.acquire(PLENTY)).toCompletableFuture().join();
        held.giveBack().toCompletableFuture().join();
        return held.decision().allowed();
    }
}
