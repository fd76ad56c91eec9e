package dev.sluice.internal.state;

/**
 * What the key's owner answers a node that asks for a slice ({@link Policy#lease}): either a slice of
 * {@link #permits()} permits, counted in the key's state as if granted at that moment and valid for
 * {@link #validForNanos()}, of which the asking request takes its own cost at once; or no slice, the request decided
 * alone as {@link Policy#apply} decides it. Immutable.
 *
 * <h2>Why a slice is never more permissive than the algorithm</h2>
 *
 * <p>Every permit a node grants from a slice was counted at the owner earlier, at the slice's time t, and is granted
 * at a time t' of the slice's validity, t &lt;= t' &lt; t + v. Write C(s) for what the owner has counted up to time s
 * (grants it decided, slices, less permits given back) and G(s) for what has been granted up to s. Counting comes
 * first, so G(s) &lt;= C(s) always; a permit is granted at most once, because a node takes it from its slice with one
 * atomic decrement, and the owner never counts a slice it could not grant.
 *
 * <p><b>Fixed window</b> (v: to the end of t's window). A grant at t' belongs to the window of t, which the owner
 * counted it in. Within a window, G &lt;= C &lt;= N, so the grants in any window are at most N: exactly the
 * algorithm's own bound.
 *
 * <p><b>Sliding window counter</b> (v: to the end of t's window). Take a grant at t' in window W, with p the count
 * of W - 1 and w(s) = (P - e(s)) / P the weight of the previous window, falling as s moves through W. Let T &lt;= t'
 * be the owner's last counting in W before t' (there is one: the slice's own). The owner counted only when
 * {@code floor(p_C * w(T) + C_W(T)) <= N}, where C_W is W's count and p_C the previous window's count, both as
 * counted, and neither less than what was granted. The grant at t' needs, for the exact algorithm fed the grants
 * alone, {@code floor(p_G * w(t') + G_W(<t') + 1) <= N}; and {@code G_W(<t') + 1 <= C_W(T)} (those grants and this
 * one were all counted by T), {@code p_G <= p_C}, {@code w(t') <= w(T)}. So the algorithm would have granted it: the
 * sequence of grants is one the algorithm admits, request by request. A slice used past its window would be
 * weighed as the previous window's while granted in the current one, which is why it stops there.
 *
 * <p><b>Stepped sliding window</b> (v: to the end of t's step). Every grant in one step leaves the window at the same
 * expiry, and the window seen at any time of that step holds the same steps. So a permit counted at t and granted at
 * t' in the same step sits in the log exactly where the algorithm would have put it, and the log of grants is
 * bounded by the log of counts, which the owner kept within N.
 *
 * <p>So for the three window algorithms, leased decisions are exactly as strict as unleased ones; counting earlier
 * than granting, inside the same window or step, is what the algorithm would have counted anyway.
 *
 * <p><b>Token bucket and GCRA</b> (v: a lifetime L). Their state is a level, and a permit counted at t leaves the
 * bucket at t whether it is granted at t or later. The counted sequence is one the algorithm admits, so in any
 * interval of length d it holds at most E(d), the algorithm's envelope: {@code E(d) <= C + ceil(d * N / P)} for
 * capacity C and N permits per period P. Permits granted in an interval [a, a + d] were counted in
 * [a - L, a + d], so the grants in any interval of length d are at most {@code E(d + L)}: at most
 * {@code C + ceil((d + L) * N / P)}, an excess of at most {@code ceil(L * N / P)} over the algorithm's envelope.
 * The number of nodes does not enter: every slice of every node is counted at the one owner, in one sequence.
 * Over a run starting from a fresh key (no counts before it), the total granted never exceeds what the algorithm
 * alone would grant; the shift shows only inside the run.
 *
 * <p><b>Never</b>: the sliding window log, which records the instant of each grant (a slice would put them all at
 * its own instant), and the leaky bucket, which gives each request its own slot in the queue and the delay to it.
 *
 * <p><b>Size.</b> The node asks for its traffic over one lifetime. The owner grants at most that, scaled down to the
 * slice's validity when the window or step ends sooner (what the node would use before then), and at most
 * {@code 1/}{@value Algorithm#SLICE_SHARE} of the permits it has left, so slices shrink as a key runs out or its
 * window ends, and a key with few permits left is decided at the owner request by request.
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
