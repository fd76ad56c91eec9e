package dev.sluice.rules;

import dev.sluice.algorithm.Policy;
import dev.sluice.annotation.Sync;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * How a rule's counters are kept across the nodes sharing a store: leased ({@link Policy#leasing()}), synchronised
 * ({@link Policy#synchronised()}, with a budget of its own or the store's) or exact. Only rate limits are distributed;
 * the rule checks that it has some. Immutable.
 *
 * @param lease whether stores that lease grant hot keys from slices taken from each key's owner
 * @param sync how the counters are kept in step across nodes
 * @param syncBudget the synchronised mode's budget in permits per node and key; empty for the store's
 */
public record Distribution(boolean lease, Sync sync, OptionalLong syncBudget) {

    /** Exact, not leased: the default. */
    public static final Distribution EXACT = new Distribution(false, Sync.EXACT, OptionalLong.empty());

    /**
     * @throws IllegalArgumentException for a negative budget, or a budget without {@link Sync#SYNCHRONISED}
     */
    public Distribution {
        Objects.requireNonNull(sync, "sync");
        if (syncBudget.isPresent() && syncBudget.getAsLong() < 0) {
            throw new IllegalArgumentException("syncBudget must be 0 or more permits, got " + syncBudget.getAsLong());
        }
        if (syncBudget.isPresent() && sync != Sync.SYNCHRONISED) {
            throw new InvalidValueException("syncBudget",
                    "none, as only a rule with \"sync\": \"synchronised\" has one",
                    Long.toString(syncBudget.getAsLong()));
        }
    }

    /** Whether the policies stay as they are: exact and not leased. */
    public boolean exact() {
        return !lease && sync == Sync.EXACT;
    }

    /** The error of a rule that asks for this distribution without rate limits to distribute. */
    InvalidValueException withoutRateLimits() {
        return lease ? new InvalidValueException("lease", "false, as only rate limits lease", "true")
                : new InvalidValueException("sync", "\"exact\", as only rate limits are synchronised", syncText());
    }

    /**
     * {@code policy} leasing and synchronised as this says, or the reason it cannot, as the field's error.
     *
     * @throws InvalidValueException naming {@code lease} or {@code sync} when the policy's algorithm cannot be
     */
    Policy apply(Policy policy) {
        Policy leasing = policy;
        if (lease) {
            try {
                leasing = policy.leasing();
            } catch (IllegalArgumentException e) {
                throw new InvalidValueException("lease", "false, as " + e.getMessage(), "true");
            }
        }
        if (sync == Sync.EXACT) {
            return leasing;
        }
        try {
            return syncBudget.isPresent() ? leasing.synchronised(syncBudget.getAsLong()) : leasing.synchronised();
        } catch (IllegalArgumentException e) {
            throw new InvalidValueException("sync", "\"exact\", as " + e.getMessage(), syncText());
        }
    }

    private String syncText() {
        return InvalidValueException.quoted(sync.name().toLowerCase(Locale.ROOT));
    }
}
