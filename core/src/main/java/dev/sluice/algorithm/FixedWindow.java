package dev.sluice.algorithm;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.internal.Durations;
import org.jspecify.annotations.Nullable;

/**
 * Fixed window counter. State {@code [window, count]}: the window's index ({@code floor(now / period)}, so every node
 * agrees on the boundaries) and the permits granted in it. Permits come back all at once, at the window's end: the
 * next permit and the reset are the same time.
 */
final class FixedWindow implements Strategy {

    @Override
    public void validate(Limit limit) {
        Strategy.requireCapacityEqualsPermits(limit, "the fixed window");
    }

    @Override
    public Decision decide(long @Nullable [] state, long now, long cost, long maxDelay, Limit limit, long[][] next,
                           int index) {
        long permits = limit.permits();
        long period = limit.periodNanos();
        long window = Math.floorDiv(now, period);
        long count = 0;
        // A later window in the state means the clock went back: stay in it.
        if (state != null && state.length == 2 && state[0] >= window) {
            window = state[0];
            count = state[1];
        }
        long untilEnd = (window + 1) * period - now;
        // A count recorded after the fact may exceed the permits; a cost of 0 only evaluates and is never rejected.
        long remaining = Math.max(0, permits - count);
        if (cost > permits) {
            next[index] = state;
            long reset = count > 0 ? untilEnd : 0;
            return Strategy.never(limit, remaining, reset, reset);
        }
        if (cost > 0 && count > permits - cost) {
            next[index] = state;
            return Decision.rejected(permits, limit.name(), untilEnd).remaining(remaining).nextPermitIn(untilEnd)
                    .resetIn(untilEnd).build();
        }
        count = Durations.saturatedAdd(count, cost);
        next[index] = Strategy.holding(state, window, count);
        long reset = count > 0 ? untilEnd : 0;
        return Decision.granted(permits, limit.name()).remaining(Math.max(0, permits - count)).nextPermitIn(reset)
                .resetIn(reset).build();
    }

    /** The permits less the current window's count. */
    @Override
    public long room(long @Nullable [] state, long now, Limit limit) {
        // A decision of cost 0 keeps the state of the window holding now (a later one when the clock went back).
        long[][] seen = new long[1][];
        decide(state, now, 0, 0, limit, seen, 0);
        return limit.permits() - seen[0][1];
    }

    /**
     * Adds {@code cost} to the window holding {@code at} when that is the current window (or the later one a clock
     * that went back stays in); a request of an earlier window counts in none any more.
     */
    @Override
    public long @Nullable [] record(long @Nullable [] state, long now, long at, long cost, Limit limit) {
        long period = limit.periodNanos();
        long window = Math.floorDiv(now, period);
        long count = 0;
        if (state != null && state.length == 2 && state[0] >= window) {
            window = state[0];
            count = state[1];
        }
        if (Math.floorDiv(at, period) != window) {
            return state;
        }
        return new long[] {window, Durations.saturatedAdd(count, cost)};
    }

    /** Until the end of the window holding {@code at}. */
    @Override
    public long sliceValidity(long at, Limit limit, long lifetime) {
        return Strategy.untilSpanEnd(at, limit.periodNanos());
    }

    /** Less {@code permits} (never below zero) when the state is still the window holding {@code at}. */
    @Override
    public long @Nullable [] takeBack(long @Nullable [] state, long at, long permits, Limit limit) {
        return Strategy.lessInWindow(state, 2, at, permits, limit.periodNanos());
    }

    /** Less {@code cost} in the window holding {@code countedAt}; a window already over counts for nothing. */
    @Override
    public long @Nullable [] undo(long @Nullable [] state, long now, long countedAt, long cost, long kept,
                                  Limit limit) {
        return Strategy.lessInWindow(state, 2, countedAt, cost, limit.periodNanos());
    }

    /** The later window; within the same window, the higher count. */
    @Override
    public long @Nullable [] merge(long @Nullable [] a, long @Nullable [] b) {
        if (a == null || a.length != 2 || b == null || b.length != 2) {
            return a == null || a.length != 2 ? b : a;
        }
        if (a[0] != b[0]) {
            return a[0] > b[0] ? a : b;
        }
        return a[1] >= b[1] ? a : b;
    }
}
