package dev.sluice.console;

import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import dev.sluice.engine.Evaluation;
import dev.sluice.engine.Reservation;
import dev.sluice.engine.RuleDecision;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.metrics.Outcome;
import dev.sluice.rules.Rule;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Records an instance's decisions for the {@link Console}: per rule, a count per {@link Outcome}, and the keys it
 * limited most (a bounded top-k of {@value #TRACKED_KEYS} keys per rule). Give it to an adapter as its
 * {@link DecisionMetrics}, beside others with {@link DecisionMetrics#all}, or through {@link ConsoleRecordingFilter}.
 *
 * <p>On the request path: a map lookup and a {@link LongAdder} increment per rule, no lock; a rejected request's key
 * also goes to the rule's top-k, under that rule's lock. Thread-safe. See {@code docs/design/console.md}.
 */
public final class ConsoleRecorder implements DecisionMetrics {

    /** How many keys per rule the top-k tracks. */
    public static final int TRACKED_KEYS = 64;

    /** How many of them a snapshot carries. */
    public static final int PUBLISHED_KEYS = 10;

    private final Map<String, RuleCounter> rules = new ConcurrentHashMap<>();
    /** Per rule id and unit, the costs reserved and settled. */
    private final Map<String, Map<String, CostCounter>> costs = new ConcurrentHashMap<>();

    @Override
    public void recorded(Evaluation evaluation, long decisionNanos) {
        List<RuleDecision> outcomes = evaluation.outcomes();
        for (int i = 0; i < outcomes.size(); i++) {
            RuleDecision decision = outcomes.get(i);
            Rule rule = decision.rule();
            RuleCounter counter = rules.get(rule.id());
            if (counter == null) {
                counter = rules.computeIfAbsent(rule.id(), id -> new RuleCounter(rule));
            }
            counter.add(rule, decision);
        }
    }

    /** Nothing: store failures are counted per instance, in the store's health that every snapshot carries. */
    @Override
    public void storeFailed(String ruleId) {
    }

    @Override
    public void reserved(String ruleId, String unit, long estimate) {
        costs(ruleId, unit).reserved(estimate);
    }

    @Override
    public void settled(String ruleId, String unit, long estimate, long actual) {
        costs(ruleId, unit).settled(estimate, actual);
    }

    /** The counter of rule {@code ruleId}'s costs in {@code unit}, which may come before its first decision. */
    private CostCounter costs(String ruleId, String unit) {
        return costs.computeIfAbsent(ruleId, id -> new ConcurrentHashMap<>()).computeIfAbsent(unit, CostCounter::new);
    }

    /**
     * Records {@code evaluation}'s reservations, once the request has ended, for a recorder that is not the adapter's
     * metrics (it hears of no reservation then: {@link ConsoleRecordingFilter}): each estimate reserved and what it
     * settled at. Call after {@link #recorded}, which makes the rules known.
     */
    void ended(Evaluation evaluation) {
        for (Reservation reservation : evaluation.reservations()) {
            String id = reservation.outcome().rule().id();
            reserved(id, reservation.unit(), reservation.estimate());
            reservation.settled().ifPresent(actual -> settled(id, reservation.unit(), reservation.estimate(), actual));
        }
    }

    /** Every rule's totals since recording started, its latest definition and its most limited keys, now. */
    List<Sample> sample() {
        List<Sample> samples = new ArrayList<>(rules.size());
        rules.values().forEach(counter -> samples.add(counter.sample(costs.getOrDefault(counter.rule.id(),
                Map.of()).values().stream().map(CostCounter::figures).toList())));
        return samples;
    }

    /** One rule's figures at one moment. */
    record Sample(String id, String mode, String limit, Counts totals, List<KeyFigures> keys,
                  List<CostFigures> costs) {
    }

    /** One rule's costs in one unit. */
    private static final class CostCounter {
        private final String unit;
        private final LongAdder reserved = new LongAdder();
        private final LongAdder settled = new LongAdder();
        private final LongAdder debt = new LongAdder();
        private final LongAdder outstanding = new LongAdder();

        CostCounter(String unit) {
            this.unit = unit;
        }

        void reserved(long estimate) {
            reserved.add(estimate);
            outstanding.add(estimate);
        }

        void settled(long estimate, long actual) {
            outstanding.add(-estimate);
            settled.add(actual);
            debt.add(Math.max(0, actual - estimate));
        }

        CostFigures figures() {
            return new CostFigures(unit, reserved.sum(), settled.sum(), debt.sum(), outstanding.sum());
        }
    }

    /** One rule's counters. */
    private static final class RuleCounter {
        /** The latest definition seen (a reload may change it); written only when it changes. */
        private volatile Rule rule;
        private final LongAdder allowed = new LongAdder();
        private final LongAdder delayed = new LongAdder();
        private final LongAdder rejected = new LongAdder();
        private final LongAdder shadowRejected = new LongAdder();
        private final TopKeys limited = new TopKeys(TRACKED_KEYS);

        RuleCounter(Rule rule) {
            this.rule = rule;
        }

        void add(Rule seen, RuleDecision decision) {
            if (rule != seen) {
                rule = seen;
            }
            switch (Outcome.of(decision)) {
                case ALLOWED -> allowed.increment();
                case DELAYED -> delayed.increment();
                case REJECTED -> {
                    rejected.increment();
                    limited.add(decision.key());
                }
                case SHADOW_REJECTED -> {
                    shadowRejected.increment();
                    limited.add(decision.key());
                }
                // Outcome.of never answers it: a failure policy's decision is counted as what it decided.
                case STORE_ERROR -> {
                }
            }
        }

        Sample sample(List<CostFigures> costs) {
            Rule now = rule;
            Counts totals = new Counts(allowed.sum(), delayed.sum(), rejected.sum(), shadowRejected.sum());
            List<KeyFigures> keys = new ArrayList<>();
            for (TopKeys.Entry entry : limited.top(PUBLISHED_KEYS)) {
                keys.add(new KeyFigures(entry.key(), entry.count(), entry.error()));
            }
            return new Sample(now.id(), now.mode().name().toLowerCase(Locale.ROOT), describe(now), totals,
                    List.copyOf(keys), costs);
        }
    }

    /** A rule's limits as text: {@code token_bucket 5/30s}, tiers as {@code premium=...}, {@code 10 concurrent}. */
    static String describe(Rule rule) {
        List<String> parts = new ArrayList<>();
        rule.requestLimits().ifPresent(limits -> parts.add(describe(limits.defaults())));
        rule.unitLimits().ifPresent(limits -> parts.add(describe(limits.defaults())));
        rule.requestLimits().ifPresent(limits -> limits.tiers()
                .forEach((tier, policy) -> parts.add(tier + "=" + describe(policy))));
        rule.concurrency().ifPresent(limit -> parts.add(limit.permits() + " concurrent"));
        return String.join(", ", parts);
    }

    private static String describe(Policy policy) {
        List<String> limits = new ArrayList<>();
        for (Limit limit : policy.limits()) {
            limits.add(limit.name());
        }
        return policy.algorithm().name().toLowerCase(Locale.ROOT) + " " + String.join(" + ", limits);
    }
}
