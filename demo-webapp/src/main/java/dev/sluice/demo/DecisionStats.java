package dev.sluice.demo;

import dev.sluice.Limit;
import dev.sluice.Policy;
import dev.sluice.TimeSource;
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

    /** What a rule did with one request. */
    enum Outcome { ALLOWED, DELAYED, REJECTED, SHADOW_REJECTED }

    private final TimeSource clock;
    private final Map<String, RuleCounts> rules = new LinkedHashMap<>();

    DecisionStats(TimeSource clock) {
        this.clock = clock;
    }

    /** The application's stats, kept in its servlet context. */
    static DecisionStats of(ServletContext context) {
        return (DecisionStats) context.getAttribute(ATTRIBUTE);
    }

    /** Counts what every rule did with one request. */
    synchronized void record(Evaluation evaluation) {
        long bucket = clock.nanos() / BUCKET.toNanos();
        for (RuleDecision outcome : evaluation.outcomes()) {
            rules.computeIfAbsent(outcome.rule().id(), id -> new RuleCounts(outcome.rule()))
                    .add(bucket, KeyMask.of(outcome.key()), outcomeOf(outcome));
        }
    }

    private static Outcome outcomeOf(RuleDecision outcome) {
        if (!outcome.decision().allowed()) {
            return outcome.enforced() ? Outcome.REJECTED : Outcome.SHADOW_REJECTED;
        }
        return outcome.enforced() && outcome.decision().delayNanos() > 0 ? Outcome.DELAYED : Outcome.ALLOWED;
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

    /** One rule's ring of buckets and its recent keys. Guarded by the enclosing instance's lock. */
    private static final class RuleCounts {
        private final Rule rule;
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

        void add(long bucket, String maskedKey, Outcome outcome) {
            int slot = (int) (bucket % BUCKETS);
            if (bucketIds[slot] != bucket) {
                bucketIds[slot] = bucket;
                Arrays.fill(counts[slot], 0);
            }
            counts[slot][outcome.ordinal()]++;
            recentKeys.computeIfAbsent(maskedKey, key -> new long[Outcome.values().length])[outcome.ordinal()]++;
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
            recentKeys.forEach((key, c) -> keys.add(0, new KeyCounts(key, c[0], c[1], c[2], c[3])));
            return new RuleSeries(rule.id(), rule.mode().name().toLowerCase(Locale.ROOT),
                    rule.policy().algorithm().name().toLowerCase(Locale.ROOT), limitNames(rule),
                    rule.cost(), perOutcome[Outcome.ALLOWED.ordinal()], perOutcome[Outcome.DELAYED.ordinal()],
                    perOutcome[Outcome.REJECTED.ordinal()], perOutcome[Outcome.SHADOW_REJECTED.ordinal()], keys);
        }

        private static List<String> limitNames(Rule rule) {
            List<String> names = new ArrayList<>();
            rule.policy().limits().forEach(limit -> names.add(limit.name()));
            for (Map.Entry<String, Policy> tier : rule.tiers().entrySet()) {
                for (Limit limit : tier.getValue().limits()) {
                    names.add(tier.getKey() + "=" + limit.name());
                }
            }
            return names;
        }
    }
}
