package dev.sluice.rules;

import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a request of a rule with limits in a unit other than requests costs in that unit: the estimate it reserves when
 * it starts (bounded by the smallest capacity of those limits), where its actual cost comes from when it ends, and the
 * largest actual cost a settle charges. Immutable but for when a clamped cost may next be logged; thread-safe. See
 * {@code docs/design/costs.md}.
 */
public final class UnitCosts {

    private static final System.Logger CLAMP_LOG = System.getLogger(ActualCost.class.getName());
    private static final long CLAMP_WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final String ruleId;
    private final Estimate estimate;
    private final ActualCost actualCost;
    private final OptionalLong maxActual;
    /** When a clamped actual cost may next be logged (System.nanoTime). */
    private final AtomicLong nextClampWarning = new AtomicLong(Long.MIN_VALUE);

    /**
     * The costs of rule {@code ruleId} under {@code unitLimits}, its estimate bounded by their smallest capacity.
     *
     * @throws IllegalArgumentException when {@code maxActual} is below the estimate's max
     */
    UnitCosts(String ruleId, RuleLimits unitLimits, Estimate estimate, ActualCost actualCost, OptionalLong maxActual) {
        this.ruleId = ruleId;
        this.estimate = estimate.boundedBy(unitLimits.smallestCapacity());
        this.actualCost = actualCost;
        this.maxActual = maxActual;
        long largestEstimate = this.estimate.max().orElseThrow();
        if (maxActual.isPresent() && maxActual.getAsLong() < largestEstimate) {
            // Below an estimate, a clamped settle would give back what the request said it used beyond it.
            throw new InvalidValueException("maxActual", "an integer from " + largestEstimate + " (the estimate's"
                    + " max) to " + Limit.MAX_PERMITS, Long.toString(maxActual.getAsLong()));
        }
    }

    /**
     * {@code cost} as a largest actual cost.
     *
     * @throws IllegalArgumentException when {@code cost} is not from 1 to {@link Limit#MAX_PERMITS}
     */
    static long checkedMaxActual(long cost) {
        if (cost < 1 || cost > Limit.MAX_PERMITS) {
            throw new InvalidValueException("maxActual", "an integer from 1 to " + Limit.MAX_PERMITS,
                    Long.toString(cost));
        }
        return cost;
    }

    /** Where a request's estimate comes from, bounded by the smallest capacity of the limits in the unit. */
    public Estimate estimate() {
        return estimate;
    }

    /** Where a request's actual cost comes from when it ends; only the API by default. */
    public ActualCost actualCost() {
        return actualCost;
    }

    /**
     * The largest actual cost a settle charges, when the rule sets one ({@code maxActual}); empty for the default
     * ({@link #maxActualCost(Policy)}).
     */
    public OptionalLong maxActual() {
        return maxActual;
    }

    /**
     * The largest actual cost a request that reserved under {@code reserved} (the rule's limits in the unit, or a
     * tier's) settles at: {@link #maxActual()}, or by default {@link ActualCost#defaultMax(Policy)}. A larger one is
     * settled at this (and logged): a debt, however large the cost said, never locks the key longer than this cost's.
     */
    public long maxActualCost(Policy reserved) {
        return maxActual.orElseGet(() -> ActualCost.defaultMax(reserved));
    }

    /**
     * {@code actual} at most {@link #maxActualCost(Policy)}; a larger one is logged (at most once a minute per rule,
     * naming the rule, never a key).
     */
    public long boundedActualCost(long actual, Policy reserved) {
        long max = maxActualCost(reserved);
        if (actual <= max) {
            return actual;
        }
        long now = System.nanoTime();
        long next = nextClampWarning.get();
        if ((next == Long.MIN_VALUE || now - next >= 0)
                && nextClampWarning.compareAndSet(next, now + CLAMP_WARN_INTERVAL_NANOS)) {
            CLAMP_LOG.log(System.Logger.Level.WARNING, "Sluice rule '" + ruleId + "': an actual cost of " + actual
                    + " " + reserved.unit() + " is above the rule's maximum of " + max + " (maxActual); settled at "
                    + max + " (said at most once a minute)");
        }
        return max;
    }

    @Override
    public String toString() {
        return "UnitCosts[" + estimate + ", " + actualCost + maxActual.stream().mapToObj(m -> ", max " + m)
                .findFirst().orElse("") + "]";
    }
}
