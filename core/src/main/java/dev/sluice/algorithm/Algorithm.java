package dev.sluice.algorithm;

import dev.sluice.Decision;
import dev.sluice.Limit;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The rate-limiting algorithms Sluice implements.
 *
 * <p>Every algorithm is a pure state transition {@code (state, now, cost, limit) -> (state', decision)}: no clock
 * reads, no I/O, no locks. The same code therefore runs in the local store (inside
 * {@code ConcurrentHashMap.compute}) and inside a Hazelcast entry processor on the member that owns the key; the
 * store supplies the atomicity and the time. State is a {@code long[]} per limit, small and fixed in shape (the two
 * log algorithms grow with traffic but are bounded by the limit), so it serializes without Java serialization.
 *
 * <p>A policy may hold several limits (10 per second and 1,000 per day). {@link #apply} decides each of them on
 * the same request and commits all of them or none: a request rejected by the daily limit does not spend a permit of
 * the per-second one. The decision reported is the most restrictive one.
 *
 * <p>Time: all algorithms work in nanoseconds on the store's timeline and never trust "now" to move forward. When a
 * clock jumps back (a skewed member takes over a key), each algorithm treats now as its state's latest time, so no
 * jump can grant a permit that the later time would not.
 *
 * <p>How the algorithms differ, for a limit of N per period P:
 * <ul>
 *   <li>{@link #TOKEN_BUCKET}: integral tokens refilled continuously at N/P, up to the capacity; exact (no rounding
 *       drift: the fraction of a token is carried).
 *   <li>{@link #GCRA}: one timestamp, the theoretical arrival time; results match redis-cell's CL.THROTTLE.
 *   <li>{@link #LEAKY_BUCKET}: the same timestamp read as a queue drained every P/N: a request is granted the delay
 *       of its slot and rejected when the queue (capacity - 1 waiting) is full or the slot is further away than the
 *       caller accepts (nginx {@code limit_req} burst and delay).
 *   <li>{@link #FIXED_WINDOW}: a counter per aligned window; up to 2N can pass around a window boundary.
 *   <li>{@link #SLIDING_WINDOW_LOG}: exact, keeps the time of each grant (merged per nanosecond), never more than N in
 *       any window of length P.
 *   <li>{@link #SLIDING_WINDOW_COUNTER}: the previous window's count weighted by its overlap with the sliding window
 *       (7 previous and 5 current at 40% of the window: 5 + 7 x 0.6 = 9.2; granted while the estimate is below N).
 *   <li>{@link #STEPPED_SLIDING_WINDOW}: counters per step of the window (10 ms steps up to 10 s windows, 100 ms up
 *       to 1 min, 1 s up to 1 h, 1 min up to 1 day, 1 h beyond); tells a client the exact step boundary at which its
 *       next request fits.
 * </ul>
 *
 * <p>Each algorithm has a fixed {@linkplain #id() id}, which is how stores that leave the process (the Hazelcast
 * wire format) name it: declaration order may change, ids never do.
 */
public enum Algorithm {
    TOKEN_BUCKET(1, new TokenBucket()),
    LEAKY_BUCKET(2, new Gcra(true)),
    FIXED_WINDOW(3, new FixedWindow()),
    SLIDING_WINDOW_LOG(4, new WindowLog(false)),
    SLIDING_WINDOW_COUNTER(5, new SlidingWindowCounter()),
    STEPPED_SLIDING_WINDOW(6, new WindowLog(true)),
    GCRA(7, new Gcra(false));

    private static final Algorithm[] ALL = values();

    private final int id;
    private final Strategy strategy;

    Algorithm(int id, Strategy strategy) {
        this.id = id;
        this.strategy = strategy;
    }

    /**
     * This algorithm's fixed id, 1 or more: stable across releases whatever the order of declaration, never reused
     * for another algorithm. Stores that write an algorithm outside the process write this, never the ordinal.
     */
    public int id() {
        return id;
    }

    /** The algorithm with this {@linkplain #id() id}; empty when there is none (written by a newer release). */
    public static Optional<Algorithm> byId(int id) {
        for (Algorithm algorithm : ALL) {
            if (algorithm.id == id) {
                return Optional.of(algorithm);
            }
        }
        return Optional.empty();
    }

    /**
     * Whether grants carry a {@linkplain Decision#delay() delay}: the caller waits for its slot in a queue. Only
     * the leaky bucket queues; its rejection means the queue has no slot within the caller's maximum delay.
     */
    public boolean queues() {
        return this == LEAKY_BUCKET;
    }

    /** Throws {@link IllegalArgumentException}, naming the limit, when this algorithm cannot enforce it. */
    public void validate(Limit limit) {
        strategy.validate(limit);
    }

    /**
     * Reconciles two copies of one key's state that were updated independently (the two sides of a healed split
     * brain): the result, limit by limit, is at least as restrictive as either copy, so no request is granted that
     * either side would have rejected. Pure; neither argument is modified. {@code null}, or a state of another shape
     * (another policy), stands for a fresh key.
     */
    public long @Nullable [][] merge(long @Nullable [][] a, long @Nullable [][] b) {
        if (a == null || b == null || a.length != b.length) {
            return a == null ? b : a;
        }
        long[][] merged = new long[a.length][];
        for (int i = 0; i < a.length; i++) {
            merged[i] = strategy.merge(a[i], b[i]);
        }
        return merged;
    }

    /**
     * Decides one request against every limit and commits the result to all of them or to none.
     *
     * @param state the key's state ({@code null} for none); never modified
     * @param now the current time in nanoseconds
     * @param cost permits asked for; 0 only evaluates
     * @param maxDelay the longest delay (nanoseconds) the caller accepts for a queued slot
     * @param limits the policy's limits, each already {@linkplain #validate validated}
     */
    public Transition apply(long @Nullable [][] state, long now, long cost, long maxDelay, List<Limit> limits) {
        if (cost < 0) {
            throw new IllegalArgumentException("cost must not be negative, got " + cost);
        }
        int count = limits.size();
        long @Nullable [][] current = state != null && state.length == count ? state : null;
        long[][] next = new long[count][];
        @Nullable Decision verdict = null;
        long idleAfter = 0;
        boolean changed = false;
        for (int i = 0; i < count; i++) {
            long @Nullable [] limitState = current == null ? null : current[i];
            Decision decision = strategy.decide(limitState, now, cost, Math.max(0, maxDelay), limits.get(i), next, i);
            verdict = verdict == null ? decision : Decision.mostRestrictive(verdict, decision);
            idleAfter = Math.max(idleAfter, decision.resetAfterNanos());
            changed |= next[i] != limitState;
        }
        if (!verdict.allowed() || !changed) {
            return new Transition(state, verdict, false, idleAfter);
        }
        return new Transition(next, verdict, true, idleAfter);
    }
}
