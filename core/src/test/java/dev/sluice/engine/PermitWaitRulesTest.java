package dev.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.annotation.RateLimited;
import dev.sluice.rules.AnnotationRules;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.file.RulesFile;
import dev.sluice.rules.match.RequestEnd;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.PermitQueue;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's wait for a concurrency permit (issue 26): read from the rules file and annotations, waited for in the
 * evaluation (first come first served, through a {@link PermitQueue}), all or nothing with the rule's rate limits
 * (counted once, when the request came; given back when the wait ends in vain or the request goes away), and told to
 * {@link PermitEvents}. A local store on a manual clock; waits end when the clock is advanced.
 */
class PermitWaitRulesTest {

    private static final String WAITING = """
            {"rules": [{"id": "exports", "match": {"paths": ["/export"]}, "key": {"type": "constant"},
                        "limits": [{"permits": 10, "period": "1h"}], "concurrency": 1, "wait": "2s"}]}""";

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final PermitQueue queue = new PermitQueue(time, scheduler, Duration.ofMillis(5));
    private final RecordingEvents events = new RecordingEvents();
    private final Permits permits = Permits.waitingIn(queue, scheduler, events);
    private final RuleSet rules = RuleSet.combine(RulesFile.parse("rules.json", WAITING), List.of());

    @AfterEach
    void close() {
        queue.close();
        scheduler.shutdownNow();
        store.close();
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 30 s").isLessThan(deadline);
            Thread.sleep(2);
        }
    }

    private CompletableFuture<Evaluation> request() {
        return rules.evaluate(TestRequest.get("/export"), store, null, permits);
    }

    /** The rate limit's remaining permits, as a bare look at the counter {@code evaluated} was counted in. */
    private long rateRemaining(Evaluation evaluated) {
        RuleDecision rate = evaluated.outcomes().get(0);
        assertThat(rate.concurrency()).isFalse();
        return store.execute(rate.counterKey(), Command.peek((Policy) rate.quota(), 0)).remaining();
    }

    @Test
    void parse_wait_isTheRulesPermitWait() {
        assertThat(rules.rules().get(0).permitWait()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void evaluate_overTheLimit_waitsAndGoesOnWhenThePermitIsReleased() throws InterruptedException {
        Evaluation holder = request().join();
        CompletableFuture<Evaluation> waiter = request();
        assertThat(waiter).isNotDone();

        holder.end(RequestEnd.NOTHING_SAID);

        await(waiter::isDone);
        assertThat(waiter.join().allowed()).isTrue();
        assertThat(waiter.join().holdsUntilEnd()).isTrue();
        assertThat(store.permitsHeld()).isEqualTo(1);
        waiter.join().end(RequestEnd.NOTHING_SAID);
        assertThat(store.permitsHeld()).isZero();
        assertThat(queue.waiting()).isZero();
    }

    @Test
    void evaluate_waitedWithRateLimits_countsTheRateOnceWhenThePermitComes() throws InterruptedException {
        Evaluation holder = request().join();
        CompletableFuture<Evaluation> waiter = request();
        assertThat(rateRemaining(holder)).isEqualTo(8);

        holder.end(RequestEnd.NOTHING_SAID);
        await(waiter::isDone);

        assertThat(waiter.join().allowed()).isTrue();
        assertThat(rateRemaining(holder)).isEqualTo(8);
        waiter.join().end(RequestEnd.NOTHING_SAID);
    }

    @Test
    void evaluate_waitEnds_rejectsGivingTheRateCountBackAndHoldingNothing() throws InterruptedException {
        Evaluation holder = request().join();
        CompletableFuture<Evaluation> waiter = request();

        time.advance(Duration.ofSeconds(2));
        await(waiter::isDone);

        assertThat(waiter.join().allowed()).isFalse();
        assertThat(waiter.join().limiting().orElseThrow().concurrency()).isTrue();
        assertThat(rateRemaining(holder)).isEqualTo(9);
        assertThat(store.permitsHeld()).isEqualTo(1);
        assertThat(queue.waiting()).isZero();
        holder.end(RequestEnd.NOTHING_SAID);
        assertThat(store.permitsHeld()).isZero();
    }

    @Test
    void evaluate_cancelledWhileWaiting_givesTheRateBackAndLeavesNoWaiterNorPermit() throws InterruptedException {
        Evaluation holder = request().join();
        CompletableFuture<Evaluation> waiter = request();

        waiter.cancel(false);
        holder.end(RequestEnd.NOTHING_SAID);

        await(() -> queue.waiting() == 0 && store.permitsHeld() == 0 && rateRemaining(holder) == 9);
        assertThat(events.held()).isZero();
    }

    @Test
    void evaluate_withoutAQueue_rejectsAWaitingRuleAtOnce() {
        Evaluation holder = request().join();

        Evaluation second = rules.evaluate(TestRequest.get("/export"), store);

        assertThat(second.allowed()).isFalse();
        assertThat(rateRemaining(holder)).isEqualTo(9);
        holder.end(RequestEnd.NOTHING_SAID);
    }

    @Test
    void evaluate_events_tellPermitsHeldAndHowEachWaitEnded() throws InterruptedException {
        Evaluation holder = request().join();
        CompletableFuture<Evaluation> granted = request();
        CompletableFuture<Evaluation> timedOut = request();
        assertThat(events.held()).isEqualTo(1);
        assertThat(events.count("started")).isEqualTo(2);

        holder.end(RequestEnd.NOTHING_SAID);
        holder.end(RequestEnd.NOTHING_SAID);
        await(granted::isDone);
        time.advance(Duration.ofSeconds(2));
        await(timedOut::isDone);

        assertThat(events.held()).isEqualTo(1);
        assertThat(events.count("granted")).isEqualTo(1);
        assertThat(events.count("timedOut")).isEqualTo(1);
        granted.join().end(RequestEnd.NOTHING_SAID);
        assertThat(events.held()).isZero();
    }

    @Test
    void evaluate_storeFailsAfterTheWait_failsWithTheKeyMaskedAndGivesTheRateBack() throws InterruptedException {
        String tenant = "tenant-7f3a9c";
        RuleSet byTenant = RuleSet.combine(RulesFile.parse("rules.json", """
                {"rules": [{"id": "exports", "match": {"paths": ["/export"]},
                            "key": {"type": "header", "name": "X-Tenant"},
                            "limits": [{"permits": 10, "period": "1h"}], "concurrency": 1, "wait": "2s"}]}"""),
                List.of());
        AtomicBoolean failing = new AtomicBoolean();
        CounterStore flaky = new CounterStore() {
            @Override
            public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
                return failing.get() && command instanceof Command.Acquire
                        ? CompletableFuture.failedFuture(new IllegalStateException("no answer for " + key))
                        : store.executeAsync(key, command);
            }

            @Override
            public void close() {
            }
        };
        Evaluation holder = byTenant.evaluate(TestRequest.get("/export").header("X-Tenant", tenant), flaky, null,
                permits).join();
        CompletableFuture<Evaluation> waiter = byTenant.evaluate(TestRequest.get("/export").header("X-Tenant",
                tenant), flaky, null, permits);

        failing.set(true);
        await(waiter::isDone);

        assertThat(waiter).isCompletedExceptionally();
        Throwable failure = waiter.handle((evaluation, error) -> error).join();
        assertThat(String.valueOf(failure.getMessage())).startsWith("no answer for").doesNotContain(tenant);
        assertThat(rateRemaining(holder)).isEqualTo(9);
        failing.set(false);
        holder.end(RequestEnd.NOTHING_SAID);
    }

    public static class WaitingResource {
        @RateLimited(id = "export", concurrency = 2, permitWait = "3s", key = "constant")
        public void export() {
        }

        @RateLimited(id = "rate", permits = 1, period = "1s", permitWait = "3s")
        public void waitWithoutConcurrency() {
        }

        @RateLimited(id = "words", concurrency = 2, permitWait = "three seconds")
        public void waitInWords() {
        }

        @RateLimited(id = "long", concurrency = 2, permitWait = "1h")
        public void waitTooLong() {
        }
    }

    private static Rule annotated(String method) throws NoSuchMethodException {
        return AnnotationRules.forMethod(WaitingResource.class, WaitingResource.class.getMethod(method)).get(0);
    }

    @Test
    void forMethod_permitWait_isTheRulesPermitWait() throws NoSuchMethodException {
        assertThat(annotated("export").permitWait()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void forMethod_permitWaitWithoutConcurrency_failsNamingTheMethod() {
        assertThatThrownBy(() -> annotated("waitWithoutConcurrency")).isInstanceOf(RulesException.class)
                .hasMessageContaining("WaitingResource#waitWithoutConcurrency")
                .hasMessageContaining("wait: expected 0s, as only a concurrency limit's permits are waited for");
    }

    @Test
    void forMethod_permitWaitNotADuration_failsNamingTheMethod() {
        assertThatThrownBy(() -> annotated("waitInWords")).isInstanceOf(RulesException.class)
                .hasMessageContaining("WaitingResource#waitInWords")
                .hasMessageContaining("permitWait: expected a duration");
    }

    @Test
    void forMethod_permitWaitTooLong_failsNamingTheMethod() {
        assertThatThrownBy(() -> annotated("waitTooLong")).isInstanceOf(RulesException.class)
                .hasMessageContaining("WaitingResource#waitTooLong")
                .hasMessageContaining("expected a wait from 0s to 10m");
    }

    /** Counts the events by name, and the permits held per the taken and released events. */
    private static final class RecordingEvents implements PermitEvents {
        private final AtomicInteger held = new AtomicInteger();
        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        int held() {
            return held.get();
        }

        int count(String event) {
            return counts.computeIfAbsent(event, e -> new AtomicInteger()).get();
        }

        private void count(String event, String ruleId) {
            assertThat(ruleId).isEqualTo("exports");
            counts.computeIfAbsent(event, e -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void taken(String ruleId) {
            held.incrementAndGet();
        }

        @Override
        public void released(String ruleId) {
            held.decrementAndGet();
        }

        @Override
        public void waitStarted(String ruleId) {
            count("started", ruleId);
        }

        @Override
        public void waitGranted(String ruleId) {
            count("granted", ruleId);
        }

        @Override
        public void waitTimedOut(String ruleId) {
            count("timedOut", ruleId);
        }
    }
}
