package dev.sluice.demo;

import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.metrics.Outcome;
import dev.sluice.rules.Evaluation;
import dev.sluice.rules.KeyMask;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleDecision;
import jakarta.servlet.ServletContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * This instance's recent rate-limit decisions per rule, for the live page: how many requests each rule allowed,
 * delayed, rejected, and (shadow rules) would have rejected, in {@link #BUCKET}-long buckets over the last
 * {@link #BUCKETS} buckets, plus the few keys that rule saw most recently.
 *
 * <p>Keys (client IPs, user names, API keys) never leave this class in clear: they are replaced by their
 * {@link KeyMask} (a keyed hash with a secret drawn when the JVM starts), so the page can tell keys apart without
 * showing them.
 *
 * <p>Thread-safe: one lock guards everything, which is plenty for a demo's traffic.
 */
public final class DecisionStats {

    /** The servlet context attribute holding the application's {@code DecisionStats}. */
    public static final String ATTRIBUTE = DecisionStats.class.getName();

    /** How long one bucket of counts covers. */
    public static final Duration BUCKET = Duration.ofSeconds(5);

    /** How many buckets are kept: five minutes. */
    public static final int BUCKETS = 60;

    /** How many of a rule's most recent keys are shown. */
    static final int RECENT_KEYS = 5;

    private final TimeSource clock;
    private final Map<String, RuleCounts> rules = new LinkedHashMap<>();

    DecisionStats(TimeSource clock) {
        this.clock = clock;
    }

    /** The application's stats, kept in its servlet context. */
    static DecisionStats of(ServletContext context) {
        return (DecisionStats) context.getAttribute(ATTRIBUTE);
    }

    /**
     * Counts what every rule did with one request. The rule's latest definition (after a rules reload) replaces the
     * one shown; the keys are masked before the lock is taken.
     */
    void record(Evaluation evaluation) {
        List<Counted> counted = new ArrayList<>(evaluation.outcomes().size());
        for (RuleDecision decision : evaluation.outcomes()) {
            counted.add(new Counted(decision.rule(), KeyMask.of(decision.key()), Outcome.of(decision)));
        }
        synchronized (this) {
            long bucket = clock.nanos() / BUCKET.toNanos();
            for (Counted one : counted) {
                rules.computeIfAbsent(one.rule().id(), id -> new RuleCounts(one.rule())).add(bucket, one);
            }
        }
    }

    /** The counts now, oldest bucket first, rules in the order they were first seen. */
    synchronized Snapshot snapshot() {
        long bucket = clock.nanos() / BUCKET.toNanos();
        List<RuleSeries> series = new ArrayList<>(rules.size());
        rules.values().forEach(counts -> series.add(counts.series(bucket)));
        return new Snapshot(BUCKET.toSeconds(), BUCKETS, series);
    }

    /**
     * What the stats endpoint answers.
     *
     * @param bucketSeconds the length of one bucket
     * @param buckets how many buckets each series holds, oldest first, the last one being the current
     */
    public record Snapshot(long bucketSeconds, int buckets, List<RuleSeries> rules) {
    }

    /**
     * One rule's counts: per outcome, one count per bucket; {@code keys} are its most recently seen keys, masked.
     *
     * @param limits the rule's limit names, tiers as {@code tier=limit}
     */
    public record RuleSeries(String id, String mode, String algorithm, List<String> limits, long cost,
                             long[] allowed, long[] delayed, long[] rejected, long[] shadowRejected,
                             List<KeyCounts> keys) {
    }

    /** One masked key's counts over the time it has been among its rule's recent keys. */
    public record KeyCounts(String key, long allowed, long delayed, long rejected, long shadowRejected) {
    }

    /** What one rule did with one request, its key masked. */
    private record Counted(Rule rule, String maskedKey, Outcome outcome) {
    }

    /** One rule's latest definition, ring of buckets and recent keys. Guarded by the enclosing instance's lock. */
    private static final class RuleCounts {
        private Rule rule;
        private final long[] bucketIds = new long[BUCKETS];
        private final long[][] counts = new long[BUCKETS][Outcome.values().length];
        private final Map<String, long[]> recentKeys = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
                return size() > RECENT_KEYS;
            }
        };

        RuleCounts(Rule rule) {
            this.rule = rule;
            Arrays.fill(bucketIds, -1);
        }

        void add(long bucket, Counted counted) {
            rule = counted.rule();
            int slot = (int) (bucket % BUCKETS);
            if (bucketIds[slot] != bucket) {
                bucketIds[slot] = bucket;
                Arrays.fill(counts[slot], 0);
            }
            int outcome = counted.outcome().ordinal();
            counts[slot][outcome]++;
            recentKeys.computeIfAbsent(counted.maskedKey(), key -> new long[Outcome.values().length])[outcome]++;
        }

        RuleSeries series(long currentBucket) {
            long[][] perOutcome = new long[Outcome.values().length][BUCKETS];
            for (int age = 0; age < BUCKETS; age++) {
                long bucket = currentBucket - (BUCKETS - 1) + age;
                int slot = Math.floorMod(bucket, BUCKETS);
                if (bucketIds[slot] == bucket) {
                    for (Outcome outcome : Outcome.values()) {
                        perOutcome[outcome.ordinal()][age] = counts[slot][outcome.ordinal()];
                    }
                }
            }
            List<KeyCounts> keys = new ArrayList<>();
            recentKeys.forEach((key, c) -> keys.add(0, new KeyCounts(key, c[Outcome.ALLOWED.ordinal()],
                    c[Outcome.DELAYED.ordinal()], c[Outcome.REJECTED.ordinal()],
                    c[Outcome.SHADOW_REJECTED.ordinal()])));
            return new RuleSeries(rule.id(), rule.mode().name().toLowerCase(Locale.ROOT),
                    rule.policy().orElseThrow().algorithm().name().toLowerCase(Locale.ROOT), limitNames(rule),
                    rule.cost(), perOutcome[Outcome.ALLOWED.ordinal()], perOutcome[Outcome.DELAYED.ordinal()],
                    perOutcome[Outcome.REJECTED.ordinal()], perOutcome[Outcome.SHADOW_REJECTED.ordinal()], keys);
        }

        private static List<String> limitNames(Rule rule) {
            List<String> names = new ArrayList<>();
            rule.policy().orElseThrow().limits().forEach(limit -> names.add(limit.name()));
            for (Map.Entry<String, Policy> tier : rule.tiers().entrySet()) {
                for (Limit limit : tier.getValue().limits()) {
                    names.add(tier.getKey() + "=" + limit.name());
                }
            }
            return names;
        }
    }
}
