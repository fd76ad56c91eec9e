package dev.sluice.console;

/**
 * Decisions of one rule, per outcome ({@link dev.sluice.metrics.Outcome}): let through at once, let through after a
 * wait, rejected, and let through by a shadow rule that would have rejected. Immutable.
 */
public record Counts(long allowed, long delayed, long rejected, long shadowRejected) {

    /** No decisions. */
    public static final Counts ZERO = new Counts(0, 0, 0, 0);

    /** These counts and {@code other}'s, summed. */
    public Counts plus(Counts other) {
        return new Counts(allowed + other.allowed, delayed + other.delayed, rejected + other.rejected,
                shadowRejected + other.shadowRejected);
    }

    /** These counts less {@code earlier}'s: what was counted since. */
    Counts minus(Counts earlier) {
        return new Counts(allowed - earlier.allowed, delayed - earlier.delayed, rejected - earlier.rejected,
                shadowRejected - earlier.shadowRejected);
    }
}
