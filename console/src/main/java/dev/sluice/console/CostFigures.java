package dev.sluice.console;

/**
 * One rule's costs in a unit other than requests ({@code docs/design/costs.md}), totals since recording started:
 * estimates reserved, actual costs settled (a reservation given back settles at 0), the debt charged beyond the
 * estimates, and what is reserved and not settled yet (requests in flight). Immutable.
 *
 * @param unit what the rule's limits count, such as {@code tokens}
 */
public record CostFigures(String unit, long reserved, long settled, long debt, long outstanding) {

    /** These figures and {@code other}'s (of the same unit), summed. */
    CostFigures plus(CostFigures other) {
        return new CostFigures(unit, reserved + other.reserved, settled + other.settled, debt + other.debt,
                outstanding + other.outstanding);
    }
}
