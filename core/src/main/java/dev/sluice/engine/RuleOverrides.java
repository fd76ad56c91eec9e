package dev.sluice.engine;

import dev.sluice.store.CounterStore;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.LimitOverrides;
import dev.sluice.store.StoreServices;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The overrides of a store's rules, checked against the rules in force: what an application, the servlet filter
 * ({@code RateLimitFilter.overrides()}) and a console set, list and remove. The overrides themselves live in the store
 * ({@link StoreServices#overrides}), so every instance sharing it applies them, whatever adapter evaluates its rules;
 * this only checks them against {@code rules} first ({@link RuleSet#check}).
 *
 * <pre>{@code
 * overrides.set(LimitOverride.forKey("api", "account-42").limits(Limit.of(1000, Duration.ofMinutes(1)))
 *         .lasting(Duration.ofHours(2)).reason("launch day, ticket 1234").setBy("alice"));
 * }</pre>
 *
 * <p>Thread-safe. See {@code docs/design/overrides.md}.
 */
public final class RuleOverrides {

    private final Supplier<RuleSet> rules;
    private final LimitOverrides overrides;

    /** The overrides of {@code store}, checked against the rules {@code rules} has in force at each call. */
    public RuleOverrides(Supplier<RuleSet> rules, CounterStore store) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.overrides = store.services().overrides();
    }

    /**
     * Sets the override {@code override} builds, as of the store's time, checked against the rules in force,
     * replacing any of its target.
     *
     * @return the override set, its key as requests' keys of its rule resolve
     * @throws IllegalArgumentException naming the problem ({@link LimitOverride.Builder#build}, {@link RuleSet#check})
     * @throws UnsupportedOperationException for a store that keeps no overrides
     */
    public LimitOverride set(LimitOverride.Builder override) {
        return overrides.set(rules.get().check(override.build(overrides.now())));
    }

    /**
     * Removes the override of {@code target} (its key as given when set), logging who removed it.
     *
     * @return the override removed; empty when there was none
     */
    public Optional<LimitOverride> remove(LimitOverride.Target target, String removedBy) {
        return overrides.remove(asResolved(target), removedBy);
    }

    /**
     * Removes {@code listed}, an override {@link #list()} answered (its key already as requests resolve it, so not
     * resolved again), logging who removed it.
     *
     * @return the override removed; empty when it was no longer in force
     */
    public Optional<LimitOverride> removeListed(LimitOverride listed, String removedBy) {
        return overrides.remove(listed.target(), removedBy);
    }

    /** The overrides in force, by rule id, then key; those of rules no longer in force too ({@link #unmatched}). */
    public List<LimitOverride> list() {
        return overrides.list();
    }

    /**
     * The overrides in force that name no rule in force (a reload removed it): they apply to nothing until they
     * expire, are removed, or a reload brings their rule back.
     */
    public List<LimitOverride> unmatched() {
        return rules.get().unmatched(overrides.list());
    }

    /**
     * {@code key} of rule {@code ruleId} as requests resolve it (escaped and bounded), which is how the overrides in
     * force name it; as given when no such rule is in force.
     */
    public String resolvedKey(String ruleId, String key) {
        RuleSet inForce = rules.get();
        return inForce.rule(ruleId).map(rule -> inForce.keyValue(rule, key)).orElse(key);
    }

    /** {@code target} with its key as requests resolve it under the rule in force; as given without that rule. */
    private LimitOverride.Target asResolved(LimitOverride.Target target) {
        return target.key().map(key -> LimitOverride.Target.key(target.ruleId(), resolvedKey(target.ruleId(), key)))
                .orElse(target);
    }

    @Override
    public String toString() {
        return "RuleOverrides[" + overrides + "]";
    }
}
