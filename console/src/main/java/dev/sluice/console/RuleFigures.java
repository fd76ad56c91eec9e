package dev.sluice.console;

import java.util.List;

/**
 * One rule's decisions: totals since the instances started recording, a series of one count per publishing interval
 * (oldest first, the last ending at the snapshot's time), and its most limited keys. Immutable (the arrays are not
 * changed once made).
 *
 * @param id the rule's id
 * @param mode {@code enforce} or {@code shadow}
 * @param limit the rule's limit as text, such as {@code token_bucket 5/30s} or {@code 10 concurrent}
 * @param totals decisions since recording started
 * @param overAdmitted for a synchronised rule, the permits by which the instances' hits took its keys past their
 *     limits since the stores started: the mode's measured error ({@code StoreHealth.Synchronised.overAdmitted()}); 0
 *     otherwise
 * @param series per interval: {@code allowed}, {@code delayed}, {@code rejected}, {@code shadowRejected}
 * @param keys the most limited keys, most first
 * @param costs the rule's costs in a unit other than requests, one per unit; empty for a rule of requests alone (and
 *     in a snapshot of an instance that records none)
 */
public record RuleFigures(String id, String mode, String limit, Counts totals, long overAdmitted, Series series,
                          List<KeyFigures> keys, List<CostFigures> costs) {

    /** An older instance's snapshot has no costs: none. */
    @SuppressWarnings("ConstantValue")
    public RuleFigures {
        costs = costs == null ? List.of() : List.copyOf(costs);
    }

    /**
     * Counts per interval, oldest first, one array per outcome, all of one length (arrays: 120 numbers each, summed
     * slot by slot, written as JSON arrays).
     */
    @SuppressWarnings("ArrayRecordComponent")
    public record Series(long[] allowed, long[] delayed, long[] rejected, long[] shadowRejected) {

        /** A series of {@code length} zeros. */
        static Series zeros(int length) {
            return new Series(new long[length], new long[length], new long[length], new long[length]);
        }

        /** Adds {@code counts} at {@code index}. */
        void add(int index, Counts counts) {
            allowed[index] += counts.allowed();
            delayed[index] += counts.delayed();
            rejected[index] += counts.rejected();
            shadowRejected[index] += counts.shadowRejected();
        }

        /** The counts at {@code index}. */
        Counts at(int index) {
            return new Counts(allowed[index], delayed[index], rejected[index], shadowRejected[index]);
        }

        int length() {
            return allowed.length;
        }
    }
}
