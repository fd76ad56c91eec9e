package dev.sluice.store;

import dev.sluice.TimeSource;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The {@link LimitOverride}s of a store, shared by every instance sharing the store: the local store keeps them in
 * memory for its one instance, the Hazelcast store in a map of the cluster, of which each instance keeps a copy that
 * is at most one second old. Rules and limiters read them through {@link #active()} on every decision, which costs one
 * volatile read while there are none; they are set, listed and removed here or, checked against the rules in force,
 * through {@code RuleOverrides} and {@code RateLimiter}. Every change is logged at INFO to the
 * {@code dev.sluice.overrides} logger, keys masked as {@code KeyMask} masks them. Thread-safe. See
 * {@code docs/design/overrides.md}.
 */
public interface LimitOverrides {

    /**
     * Sets {@code override}, replacing the one of its {@linkplain LimitOverride#target() target} if any.
     *
     * @return {@code override}
     * @throws IllegalArgumentException when it has ended by the store's time
     * @throws UnsupportedOperationException for a store that keeps no overrides ({@link #unsupported()})
     */
    LimitOverride set(LimitOverride override);

    /**
     * Removes the override of {@code target}, logging who removed it.
     *
     * @param removedBy who removes it
     * @return the override removed; empty when there was none (or it had ended)
     */
    Optional<LimitOverride> remove(LimitOverride.Target target, String removedBy);

    /** The time by which overrides start and end here: the store's time source, as an instant. */
    Instant now();

    /** The overrides in force now, by rule id, then key (a rule's own first). */
    List<LimitOverride> list();

    /**
     * The overrides as decisions read them: one immutable view, taken once per request, whose lookups check each
     * override's expiry at that moment. Costs one volatile read when there are none.
     */
    Active active();

    /** A view of the overrides for decisions; immutable and thread-safe. */
    interface Active {

        /** Whether there are none, so no lookup is needed. */
        boolean isEmpty();

        /**
         * The override that applies now to {@code key} (as requests resolve it) of rule {@code ruleId}: the key's own,
         * else the rule's; empty when none applies or it has ended, so the rule's own limits hold.
         */
        Optional<LimitOverride> find(String ruleId, String key);
    }

    /**
     * Overrides kept in memory, for one instance: what the local store keeps; instants read from {@code time} as
     * nanoseconds since the Unix epoch.
     */
    static LimitOverrides inMemory(TimeSource time) {
        return new InMemoryLimitOverrides(time);
    }

    /**
     * No overrides, and none can be set: what a store of another library has ({@link StoreServices#overrides}'s
     * default). {@link #set} throws {@link UnsupportedOperationException}.
     */
    static LimitOverrides unsupported() {
        return InMemoryLimitOverrides.UNSUPPORTED;
    }
}
