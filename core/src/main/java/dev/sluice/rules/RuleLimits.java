package dev.sluice.rules;

import dev.sluice.algorithm.Policy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The limits of a rule in one unit: the policy of requests of no listed tier and each tier's policy, by the tier key's
 * value. A rule has one for its requests and one for its unit other than requests (tokens, bytes); every policy of one
 * counts the same unit. Immutable.
 *
 * @param defaults the policy of requests of no listed tier
 * @param tiers the policy of each tier, by the tier key's value
 */
public record RuleLimits(Policy defaults, Map<String, Policy> tiers) {

    /**
     * @throws IllegalArgumentException when a tier counts another unit than {@code defaults}
     */
    public RuleLimits {
        Objects.requireNonNull(defaults, "defaults");
        tiers = Map.copyOf(tiers);
        for (Policy tier : tiers.values()) {
            if (!tier.unit().equals(defaults.unit())) {
                throw new IllegalArgumentException("a rule counts one unit beside requests: its limits count "
                        + defaults.unit() + ", a tier's " + tier.unit());
            }
        }
    }

    /** What every policy counts: {@link Policy#REQUESTS} or a unit such as tokens. */
    public String unit() {
        return defaults.unit();
    }

    /** The smallest capacity of the default policy's and the tiers' limits. */
    public long smallestCapacity() {
        long smallest = defaults.capacity();
        for (Policy tier : tiers.values()) {
            smallest = Math.min(smallest, tier.capacity());
        }
        return smallest;
    }

    /** These limits with each policy made {@code distribution}'s. */
    RuleLimits distributed(Distribution distribution) {
        Map<String, Policy> byTier = new LinkedHashMap<>(tiers);
        byTier.replaceAll((tier, policy) -> distribution.apply(policy));
        return new RuleLimits(distribution.apply(defaults), byTier);
    }
}
