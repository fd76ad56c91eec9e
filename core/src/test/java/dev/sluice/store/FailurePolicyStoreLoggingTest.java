package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.text.MessageFormat;
import java.time.Duration;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** A failing store is never silent: the log, the health view and the decisions say so, and never name a key. */
class FailurePolicyStoreLoggingTest {

    private static final Policy POLICY = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(3, Duration.ofMinutes(1)));
    private static final Duration TIMEOUT = Duration.ofMillis(50);
    private static final Duration INTERVAL = Duration.ofMinutes(1);
    private static final String KEY = "login|198.51.100.7";

    private final ManualTimeSource time = new ManualTimeSource();
    private final CapturingLogger logger = new CapturingLogger();
    private final Switchable remote = new Switchable(new LocalCounterStore(time, 100));

    private FailurePolicyStore store(FailurePolicyStore policy) {
        return policy.withFailureLogging(logger, System.Logger.Level.WARNING, INTERVAL, time);
    }

    @Test
    void firstFailure_isLoggedAtOnceWithItsCauseAndConsequence() {
        FailurePolicyStore store = store(FailurePolicyStore.allowing(remote, TIMEOUT));
        remote.failing = true;

        store.execute(KEY, Command.decide(POLICY, 1, 0));

        assertThat(logger.lines).singleElement().satisfies(line -> {
            assertThat(line.level()).isEqualTo(System.Logger.Level.WARNING);
            assertThat(line.text()).contains("java.lang.IllegalStateException",
                    "lets those requests through unlimited");
        });
    }

    @Test
    void failuresWithinTheInterval_areSummedUpInOneLineOnceItHasPassed() {
        FailurePolicyStore store = store(FailurePolicyStore.rejecting(remote, TIMEOUT));
        remote.failing = true;
        for (int i = 0; i < 50; i++) {
            store.execute(KEY, Command.decide(POLICY, 1, 0));
            time.advance(Duration.ofMillis(100));
        }
        assertThat(logger.lines).hasSize(1);

        time.advance(INTERVAL);
        store.execute(KEY, Command.decide(POLICY, 1, 0));

        assertThat(logger.lines).hasSize(2);
        assertThat(logger.lines.get(1).text()).contains("50 failed, 0 timed out, 0 shed", "refuses those requests");
    }

    @Test
    void storeAnswersAgain_saidInOneLineOnceTheIntervalHasPassed() {
        FailurePolicyStore store = store(FailurePolicyStore.allowing(remote, TIMEOUT));
        remote.failing = true;
        store.execute(KEY, Command.decide(POLICY, 1, 0));
        remote.failing = false;

        store.execute(KEY, Command.decide(POLICY, 1, 0));
        assertThat(logger.lines).hasSize(1);
        time.advance(INTERVAL);
        store.execute(KEY, Command.decide(POLICY, 1, 0));
        store.execute(KEY, Command.decide(POLICY, 1, 0));

        assertThat(logger.lines).hasSize(2);
        assertThat(logger.lines.get(1).level()).isEqualTo(System.Logger.Level.INFO);
        assertThat(logger.lines.get(1).text()).contains("answers again");
    }

    @Test
    void causeQuotingTheKey_isLoggedWithoutIt() {
        FailurePolicyStore store = store(FailurePolicyStore.allowing(remote, TIMEOUT));
        remote.failing = true;

        store.execute(KEY, Command.decide(POLICY, 1, 0));
        time.advance(INTERVAL);
        store.execute(KEY, Command.decide(POLICY, 1, 0));

        assertThat(logger.lines).hasSize(2).allSatisfy(line -> assertThat(line.text()).doesNotContain(KEY));
        assertThat(logger.lines.get(0).text()).contains("no counter for <key>");
    }

    @Test
    void allowOrRejectForFailure_isMarkedStoreUnavailable_aFallbackDecisionIsNot() {
        remote.failing = true;
        Decision allowed = store(FailurePolicyStore.allowing(remote, TIMEOUT)).execute(KEY, Command.decide(POLICY, 1,
                0));
        Decision rejected = store(FailurePolicyStore.rejecting(remote, TIMEOUT)).execute(KEY, Command.decide(POLICY,
                1, 0));
        Decision fallback = store(FailurePolicyStore.fallingBackTo(remote, TIMEOUT, new LocalCounterStore(time, 10)))
                .execute(KEY, Command.decide(POLICY, 1, 0));

        assertThat(allowed.allowed()).isTrue();
        assertThat(allowed.storeUnavailable()).isTrue();
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.storeUnavailable()).isTrue();
        assertThat(fallback.storeUnavailable()).isFalse();
        remote.failing = false;
        assertThat(store(FailurePolicyStore.rejecting(remote, TIMEOUT)).execute(KEY, Command.decide(POLICY, 1,
                0)).storeUnavailable())
                .isFalse();
    }

    @Test
    void health_countsTheLastMinutesFailuresAndShedCalls_andForgetsOlderOnes() {
        FailurePolicyStore store = store(FailurePolicyStore.allowing(remote, TIMEOUT));
        FailurePolicyStore shedding = store(FailurePolicyStore.allowing(new UnresponsiveStore(), TIMEOUT))
                .withMaxPending(1);
        remote.failing = true;
        for (int i = 0; i < 4; i++) {
            store.execute(KEY, Command.decide(POLICY, 1, 0));
            shedding.executeAsync(KEY, Command.decide(POLICY, 1, 0));
        }
        time.advance(Duration.ofSeconds(30));
        store.execute(KEY, Command.decide(POLICY, 1, 0));

        assertThat(store.services().health()).isEqualTo(new StoreHealth("local", 0, new StoreHealth.Failures(5, 0, 0),
                StoreHealth.Cluster.NONE));
        assertThat(store.services().health().lastMinute().total()).isEqualTo(5);
        assertThat(shedding.services().health().lastMinute().shed()).isEqualTo(3);
        time.advance(Duration.ofSeconds(31));
        assertThat(store.services().health().lastMinute().failed()).isEqualTo(1);
        time.advance(Duration.ofSeconds(30));
        assertThat(store.services().health().lastMinute().failed()).isZero();
        assertThat(store.failures()).isEqualTo(5);
    }

    /** Delegates to a real store, or fails with a message that quotes the key, as some store exceptions do. */
    private static final class Switchable implements CounterStore {
        private final CounterStore delegate;
        volatile boolean failing;

        Switchable(CounterStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
            if (failing) {
                throw new IllegalStateException("no counter for " + key);
            }
            return delegate.executeAsync(key, command);
        }

        @Override
        public void close() {
        }
    }

    record Line(System.Logger.Level level, String text) {
    }

    /** Keeps every line logged at or above {@code INFO}. */
    private static final class CapturingLogger implements System.Logger {
        final List<Line> lines = new CopyOnWriteArrayList<>();

        @Override
        public String getName() {
            return "capturing";
        }

        @Override
        public boolean isLoggable(Level level) {
            return level.getSeverity() >= Level.INFO.getSeverity();
        }

        @Override
        public void log(Level level, @Nullable ResourceBundle bundle, @Nullable String msg,
                        @Nullable Throwable thrown) {
            if (isLoggable(level)) {
                lines.add(new Line(level, String.valueOf(msg)));
            }
        }

        @Override
        public void log(Level level, @Nullable ResourceBundle bundle, @Nullable String format,
                        @Nullable Object... params) {
            if (isLoggable(level)) {
                // As java.util.logging does: a message without parameters is not a format.
                String text = params == null || params.length == 0 ? String.valueOf(format)
                        : MessageFormat.format(String.valueOf(format), params);
                lines.add(new Line(level, text));
            }
        }
    }
}
