package dev.sluice.internal.state;

/**
 * What the key's owner answers a node that asks for a slice ({@code Policy.lease}): either a slice of
 * {@link #permits()} permits, counted in the key's state as if granted at that moment and valid for
 * {@link #validForNanos()}, of which the asking request takes its own cost at once; or no slice, the request decided
 * alone as {@code Policy.apply} decides it. A slice is at most {@code 1/}{@value #SLICE_SHARE} of the permits left.
 *
 * <p>For the window algorithms a leased decision is exactly as strict as an unleased one; for the token bucket and
 * GCRA the grants in any interval exceed the algorithm's envelope by at most {@code ceil(L * N / P)} for a slice
 * lifetime L. Immutable. Proofs and sizes: {@code docs/design/leasing.md}.
 */
public final class Lease {

    /** A slice is at most this fraction (1/n) of the permits the owner has left. */
    public static final int SLICE_SHARE = 8;

    private final Transition transition;
    private final long permits;
    private final long validForNanos;

    public Lease(Transition transition, long permits, long validForNanos) {
        this.transition = transition;
        this.permits = permits;
        this.validForNanos = validForNanos;
    }

    /**
     * The state to store and the owner's decision: for a slice, the decision on the whole slice (its remaining
     * permits exclude all of it); otherwise the request's own decision.
     */
    public Transition transition() {
        return transition;
    }

    /** The permits of the slice, the asking request's cost included, more than that cost; 0 when no slice. */
    public long permits() {
        return permits;
    }

    /** How long after it was counted the slice may be granted from; 0 when no slice. */
    public long validForNanos() {
        return validForNanos;
    }
}
