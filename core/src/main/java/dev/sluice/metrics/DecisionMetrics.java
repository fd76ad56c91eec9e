package dev.sluice.metrics;

import dev.sluice.engine.Evaluation;
import dev.sluice.engine.PermitEvents;
import dev.sluice.store.CounterKeys;
import dev.sluice.store.StoreHealth;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where adapters report what the rules decided: per rule and {@link Outcome}, and how long deciding took; and, as
 * {@link PermitEvents}, the concurrency permits this node holds per rule and its waits for them, and the costs its
 * requests reserved and settled in units other than requests. Implementations must
 * be thread-safe and must not block; they never see keys (client addresses, API keys).
 */
public interface DecisionMetrics extends PermitEvents {

    /**
     * The rule id reported for a store failure on a counter no rule made: the application's own counters in the
     * filter's store (through {@code RateLimitFilter.STORE_ATTRIBUTE}). Never a valid rule id.
     */
    String NOT_A_RULE = CounterKeys.NO_ID;

    /** Records nothing. */
    DecisionMetrics NONE = new DecisionMetrics() {
        @Override
        public void recorded(Evaluation evaluation, long decisionNanos) {
        }

        @Override
        public void storeFailed(String ruleId) {
        }
    };

    /**
     * Metrics that report to each of {@code metrics} in turn (such as Micrometer's and the console's recorder), their
     * permit events included; a watch of the health is one watch of each, closed together.
     */
    static DecisionMetrics all(DecisionMetrics... metrics) {
        List<DecisionMetrics> each = List.of(metrics);
        return new DecisionMetrics() {
            @Override
            public void recorded(Evaluation evaluation, long decisionNanos) {
                for (DecisionMetrics one : each) {
                    one.recorded(evaluation, decisionNanos);
                }
            }

            @Override
            public void storeFailed(String ruleId) {
                for (DecisionMetrics one : each) {
                    one.storeFailed(ruleId);
                }
            }

            @Override
            public void taken(String ruleId) {
                each.forEach(one -> one.taken(ruleId));
            }

            @Override
            public void released(String ruleId) {
                each.forEach(one -> one.released(ruleId));
            }

            @Override
            public void waitStarted(String ruleId) {
                each.forEach(one -> one.waitStarted(ruleId));
            }

            @Override
            public void waitGranted(String ruleId) {
                each.forEach(one -> one.waitGranted(ruleId));
            }

            @Override
            public void waitTimedOut(String ruleId) {
                each.forEach(one -> one.waitTimedOut(ruleId));
            }

            @Override
            public void reserved(String ruleId, String unit, long estimate) {
                each.forEach(one -> one.reserved(ruleId, unit, estimate));
            }

            @Override
            public void settled(String ruleId, String unit, long estimate, long actual) {
                each.forEach(one -> one.settled(ruleId, unit, estimate, actual));
            }

            @Override
            public Watch watch(Supplier<StoreHealth> health) {
                List<Watch> watches = new ArrayList<>(each.size());
                for (DecisionMetrics one : each) {
                    watches.add(one.watch(health));
                }
                return () -> watches.forEach(Watch::close);
            }
        };
    }

    /** One request's evaluation: each counting rule's outcome, and the time it took to decide, in nanoseconds. */
    void recorded(Evaluation evaluation, long decisionNanos);

    /**
     * The store failed or timed out on one of {@code ruleId}'s counters ({@link #NOT_A_RULE} for a counter of no
     * rule); the failure policy decided instead.
     */
    void storeFailed(String ruleId);

    /**
     * Publishes the health of the adapter's store (read whenever the metrics are scraped, so it must be cheap and
     * must not throw: {@link dev.sluice.store.StoreServices#health} is both) until the returned handle is closed.
     * Called once when the adapter starts; the adapter closes the handle when it stops, so that a redeployed
     * application publishes its new store's health, and the old store is not kept alive by its meters. The default
     * publishes nothing.
     */
    default Watch watch(Supplier<StoreHealth> health) {
        return Watch.NOTHING;
    }

    /** What one {@link #watch} published; {@link #close()} withdraws it. */
    @FunctionalInterface
    interface Watch extends AutoCloseable {

        /** A watch that published nothing. */
        Watch NOTHING = () -> {
        };

        /** Withdraws what the watch published. Idempotent; never throws. */
        @Override
        void close();
    }
}
