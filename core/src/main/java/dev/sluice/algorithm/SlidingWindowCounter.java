package dev.sluice.algorithm;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.internal.Durations;
import org.jspecify.annotations.Nullable;

/**
 * Sliding window counter. State {@code [window, current, previous]}: the aligned window's index and the permits
 * granted in it and in the one before.
 *
 * <p>At elapsed time {@code e} into the current window, the sliding window holds an estimated
 * {@code previous * (P - e) / P + current}. A cost c is granted while {@code floor(estimate) + c <= N}, which for
 * c = 1 is "the estimate is below N" (7 previous, 5 current, 40% in: {@code 9.2 < 10}, granted).
 *
 * <p>With r permits remaining, the next permit comes when the estimate's floor first drops to {@code N - r - 1}: the
 * time at which a cost of {@code r + 1} would fit, within this window as the previous one decays, else in the next
 * one as this one does.
 */
final class SlidingWindowCounter implements Strategy {

    @Override
    public void validate(Limit limit) {
        Strategy.requireCapacityEqualsPermits(limit, "the sliding window counter");
    }

    @Override
    public Decision decide(long @Nullable [] state, long now, long cost, long maxDelay, Limit limit, long[][] next,
                           int index) {
        long permits = limit.permits();
        long period = limit.periodNanos();
        long window = Math.floorDiv(now, period);
        long current = 0;
        long previous = 0;
        long elapsed = now - window * period;
        if (state != null && state.length == 3) {
            if (state[0] >= window) {
                // Same window, or the clock went back into an earlier one: keep the later window, and weigh its
                // previous window fully, as at its very start.
                elapsed = state[0] == window ? elapsed : 0;
                window = state[0];
                current = state[1];
                previous = state[2];
            } else if (state[0] == window - 1) {
                previous = state[1];
            }
        }
        long windowStart = window * period;
        long reset = current > 0 ? windowStart + 2 * period - now : previous > 0 ? windowStart + period - now : 0;
        long used = Durations.saturatedAdd(Arithmetic.mulDivFloor(previous, period - elapsed, period), current);
        // Counts recorded after the fact may exceed the permits; a cost of 0 only evaluates and is never rejected.
        long remaining = Math.max(0, permits - used);
        if (cost > permits) {
            next[index] = state;
            return Strategy.never(limit, remaining,
                    untilNextPermit(windowStart, period, previous, current, remaining, permits, now), reset);
        }
        if (cost > 0 && used > permits - cost) {
            next[index] = state;
            long fits = fitsAt(windowStart, period, previous, current, cost, permits) - now;
            return Decision.rejected(permits, limit.name(), fits).remaining(remaining)
                    .nextPermitIn(untilNextPermit(windowStart, period, previous, current, remaining, permits, now))
                    .resetIn(reset).build();
        }
        current = Durations.saturatedAdd(current, cost);
        next[index] = Strategy.holding(state, window, current, previous);
        reset = current > 0 ? windowStart + 2 * period - now : reset;
        remaining = Math.max(0, remaining - cost);
        return Decision.granted(permits, limit.name()).remaining(remaining)
                .nextPermitIn(untilNextPermit(windowStart, period, previous, current, remaining, permits, now))
                .resetIn(reset).build();
    }

    /** The permits less the estimate's floor. */
    @Override
    public long room(long @Nullable [] state, long now, Limit limit) {
        long period = limit.periodNanos();
        // A decision of cost 0 keeps the state of the window holding now (a later one when the clock went back).
        long[][] seen = new long[1][];
        decide(state, now, 0, 0, limit, seen, 0);
        long[] counts = seen[0];
        long elapsed = counts[0] == Math.floorDiv(now, period) ? now - counts[0] * period : 0;
        long used = Durations.saturatedAdd(Arithmetic.mulDivFloor(counts[2], period - elapsed, period), counts[1]);
        return limit.permits() - used;
    }

    /**
     * Adds {@code cost} to the count of the window holding {@code at}: the current window's, or the previous one's
     * (which the estimate weighs by its overlap); a request of an older window counts in neither any more.
     */
    @Override
    public long @Nullable [] record(long @Nullable [] state, long now, long at, long cost, Limit limit) {
        long period = limit.periodNanos();
        long window = Math.floorDiv(now, period);
        long current = 0;
        long previous = 0;
        if (state != null && state.length == 3) {
            if (state[0] >= window) {
                window = state[0];
                current = state[1];
                previous = state[2];
            } else if (state[0] == window - 1) {
                previous = state[1];
            }
        }
        long of = Math.floorDiv(at, period);
        if (of == window) {
            current = Durations.saturatedAdd(current, cost);
        } else if (of == window - 1) {
            previous = Durations.saturatedAdd(previous, cost);
        } else {
            return state;
        }
        return new long[] {window, current, previous};
    }

    /** Until the end of the window holding {@code at}: after it, its count is weighed as the previous window's. */
    @Override
    public long sliceValidity(long at, Limit limit, long lifetime) {
        return Strategy.untilSpanEnd(at, limit.periodNanos());
    }

    /** The current count less {@code permits} (never below zero) when the state is still the window holding at. */
    @Override
    public long @Nullable [] takeBack(long @Nullable [] state, long at, long permits, Limit limit) {
        return Strategy.lessInWindow(state, 3, at, permits, limit.periodNanos());
    }

    /**
     * Less {@code cost} in the count of the window holding {@code countedAt}: the current count while the state is
     * still that window, the previous one's once the state has moved to the next window; an older window counts for
     * nothing.
     */
    @Override
    public long @Nullable [] undo(long @Nullable [] state, long now, long countedAt, long cost, long kept,
                                  Limit limit) {
        long window = Math.floorDiv(countedAt, limit.periodNanos());
        if (state == null || state.length != 3 || state[0] != window + 1) {
            return Strategy.lessInWindow(state, 3, countedAt, cost, limit.periodNanos());
        }
        long[] less = state.clone();
        less[2] -= Math.min(cost, less[2]);
        return less;
    }

    /**
     * Both states seen from the later window (an older window's count becomes the previous one, or drops out), then
     * the higher of each count.
     */
    @Override
    public long @Nullable [] merge(long @Nullable [] a, long @Nullable [] b) {
        if (a == null || a.length != 3 || b == null || b.length != 3) {
            return a == null || a.length != 3 ? b : a;
        }
        long window = Math.max(a[0], b[0]);
        long[] x = inWindow(a, window);
        long[] y = inWindow(b, window);
        return new long[] {window, Math.max(x[1], y[1]), Math.max(x[2], y[2])};
    }

    private static long[] inWindow(long[] state, long window) {
        if (state[0] == window) {
            return state;
        }
        return new long[] {window, 0, state[0] == window - 1 ? state[1] : 0};
    }

    /** Nanoseconds from now until more than {@code remaining} permits fit; zero when all of them already do. */
    private static long untilNextPermit(long windowStart, long period, long previous, long current, long remaining,
                                        long permits, long now) {
        return remaining >= permits ? 0 : fitsAt(windowStart, period, previous, current, remaining + 1, permits) - now;
    }

    /** The earliest time at which {@code cost} fits, given the counts of the window starting at windowStart. */
    private static long fitsAt(long windowStart, long period, long previous, long current, long cost, long permits) {
        if (current <= permits - cost) {
            return windowStart + decayedBelow(permits - cost - current, previous, period);
        }
        // Only once the current window has become the previous one.
        return windowStart + period + decayedBelow(permits - cost, current, period);
    }

    /**
     * The smallest elapsed time e in a window with {@code previous} permits behind it at which
     * {@code floor(previous * (P - e) / P) <= room}, that is {@code e >= P + 1 - ceil((room + 1) * P / previous)}.
     */
    private static long decayedBelow(long room, long previous, long period) {
        if (previous <= room) {
            return 0;
        }
        return Math.max(0, period + 1 - Arithmetic.mulDivCeil(room + 1, period, previous));
    }
}
