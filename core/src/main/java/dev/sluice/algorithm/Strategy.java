package dev.sluice.algorithm;

import dev.sluice.Decision;
import dev.sluice.Limit;
import org.jspecify.annotations.Nullable;

/** One algorithm's decision for one limit: the unit that {@link Algorithm} composes over a policy's limits. */
interface Strategy {

    /** Throws {@link IllegalArgumentException}, naming the limit, when this algorithm cannot enforce it. */
    default void validate(Limit limit) {
    }

    /**
     * Decides whether {@code cost} permits fit {@code limit} at {@code now}, and computes the state after granting
     * them.
     *
     * <p>Pure: reads {@code state} (never modifies it; {@code null} or a foreign shape means a fresh key) and writes
     * the state to keep if the request is granted into {@code next[index]}: a new array, or {@code state} itself when
     * nothing changes. Time earlier than the state's own latest time is treated as that time, so a clock that jumps
     * back never grants extra permits.
     *
     * <p>The decision's {@link Decision#nextPermitNanos()} is exact: when, with no other request, the remaining
     * permits of the state kept afterwards first grow.
     */
    Decision decide(long @Nullable [] state, long now, long cost, long maxDelay, Limit limit, long[][] next,
                    int index);

    /**
     * Counts {@code cost} permits against {@code limit} for a request made at {@code at} (at most {@code now} for a
     * request already made; later for a slot reserved ahead), whether or not they fit, and returns the state after:
     * a new array, or {@code state} itself when the request counts in no window any more. Pure, like
     * {@link #decide}.
     *
     * @throws IllegalArgumentException when this algorithm keeps no record of when its permits were taken (the
     *     default); see {@link Algorithm#countsPastRequests()}
     */
    default long @Nullable [] record(long @Nullable [] state, long now, long at, long cost, Limit limit) {
        throw new IllegalArgumentException("this algorithm cannot count a request at another time than now");
    }

    /**
     * The permits {@code limit} has left at {@code now}, below zero by as many as {@code state} counts past it
     * (requests {@linkplain #record recorded} whatever was left): where it is positive, what a {@link #decide} of cost
     * 0 reports as remaining. Pure.
     */
    long room(long @Nullable [] state, long now, Limit limit);

    /**
     * A state at least as restrictive as both {@code a} and {@code b}: at every later time it grants no request that
     * either of them would reject. Used to reconcile two copies of one key that were updated apart (a healed split
     * brain). Pure; {@code null} or a foreign shape stands for a fresh key, so the other state wins.
     */
    long @Nullable [] merge(long @Nullable [] a, long @Nullable [] b);

    /**
     * How long after {@code at} permits counted at {@code at} are still counted where they were, for leasing:
     * until the end of the window or step holding {@code at} for the window algorithms, {@code lifetime} for the
     * token bucket and GCRA; 0 (the default) for an algorithm that never leases.
     */
    default long sliceValidity(long at, Limit limit, long lifetime) {
        return 0;
    }

    /**
     * {@code state} with {@code permits} counted at {@code at} taken back: a new array, or {@code state} itself when
     * this algorithm cannot take them back (the default) or they are no longer where they were counted. Only called
     * within {@link #sliceValidity} of {@code at}. Pure.
     */
    default long @Nullable [] takeBack(long @Nullable [] state, long at, long permits, Limit limit) {
        return state;
    }

    /**
     * {@code state} with {@code cost} of a request that {@link #decide} granted at {@code countedAt} taken back, at
     * {@code now} (not before {@code countedAt}), the request keeping {@code kept} more that stay counted (0 when it
     * is taken back whole, the part of a reservation its settle keeps otherwise): a new array, or {@code state}
     * itself when nothing is to change. The result is never more permissive than the state would be had the request
     * been counted at {@code kept}, and equal to it in the cases {@code docs/design/all-or-nothing.md} and
     * {@code docs/design/costs.md} prove. Pure, like {@link #decide}.
     */
    long @Nullable [] undo(long @Nullable [] state, long now, long countedAt, long cost, long kept, Limit limit);

    /** Nanoseconds from {@code at} to the end of the aligned span of {@code length} (a window, a step) holding it. */
    static long untilSpanEnd(long at, long length) {
        return (Math.floorDiv(at, length) + 1) * length - at;
    }

    /**
     * A window state {@code [window, count, ...]} of {@code length} longs with {@code permits} fewer counted in its
     * window (never below zero), when that window holds {@code at}; else {@code state} itself.
     */
    static long @Nullable [] lessInWindow(long @Nullable [] state, int length, long at, long permits, long period) {
        if (state == null || state.length != length || state[0] != Math.floorDiv(at, period)) {
            return state;
        }
        long[] less = state.clone();
        less[1] -= Math.min(permits, less[1]);
        return less;
    }

    /**
     * {@code state} itself when it already holds {@code [a, b]}, else a new state of them: a decision of cost 0 that
     * changes nothing allocates no copy.
     */
    static long[] holding(long @Nullable [] state, long a, long b) {
        return state != null && state.length == 2 && state[0] == a && state[1] == b ? state : new long[] {a, b};
    }

    /** {@link #holding(long[], long, long)} for a state of three longs. */
    static long[] holding(long @Nullable [] state, long a, long b, long c) {
        return state != null && state.length == 3 && state[0] == a && state[1] == b && state[2] == c ? state
                : new long[] {a, b, c};
    }

    /** The decision for a cost above the capacity: rejected, never retryable, nothing changed. */
    static Decision never(Limit limit, long remaining, long nextPermit, long resetAfter) {
        return Decision.rejected(limit.capacity(), limit.name(), Decision.NEVER).remaining(remaining)
                .nextPermitIn(nextPermit).resetIn(resetAfter).build();
    }

    /** Throws unless the limit keeps the default capacity: window algorithms have no separate burst. */
    static void requireCapacityEqualsPermits(Limit limit, String algorithm) {
        if (limit.capacity() != limit.permits()) {
            throw new IllegalArgumentException(algorithm + " has no separate capacity: limit " + limit
                    + " must have capacity equal to its permits (" + limit.permits() + ")");
        }
    }
}
