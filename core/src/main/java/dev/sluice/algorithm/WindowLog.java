package dev.sluice.algorithm;

import dev.sluice.Decision;
import dev.sluice.Durations;
import dev.sluice.Limit;
import org.jspecify.annotations.Nullable;

/**
 * The sliding window log and the stepped sliding window: one log of grants, kept at two resolutions.
 *
 * <p>State {@code [expiry0, count0, expiry1, count1, ...]}, ascending: each entry says {@code count} permits leave
 * the window at {@code expiry}. The stepped window rounds grants into steps of {@link #stepNanos(long)}; a step
 * leaves the window {@code ceil(P / step)} steps after it began, so the window spans between {@code P - step} and
 * {@code P}, and the state holds at most one entry per step. The log is the same with 1 ns steps: a grant at t leaves
 * at exactly {@code t + P}, so no window of length P ever holds more than N. Either way the log never holds more
 * entries than permits, and the time at which a rejected request fits is the expiry of the entry that frees enough
 * permits: the exact step boundary a client may be told. The next permit comes back when the oldest entry still in
 * the window leaves it: for the stepped window, the boundary at which its oldest counted step slides out.
 */
final class WindowLog implements Strategy {

    private final boolean stepped;

    WindowLog(boolean stepped) {
        this.stepped = stepped;
    }

    /** The step of a stepped window of this period: 10 ms up to 10 s, 100 ms up to 1 min, 1 s up to 1 h, ... */
    static long stepNanos(long periodNanos) {
        long second = 1_000_000_000L;
        if (periodNanos <= 10 * second) {
            return 10_000_000L;
        } else if (periodNanos <= 60 * second) {
            return 100_000_000L;
        } else if (periodNanos <= 3_600 * second) {
            return second;
        } else if (periodNanos <= 86_400 * second) {
            return 60 * second;
        }
        return 3_600 * second;
    }

    @Override
    public void validate(Limit limit) {
        Strategy.requireCapacityEqualsPermits(limit, stepped ? "the stepped sliding window" : "the sliding window log");
    }

    @Override
    public Decision decide(long @Nullable [] state, long now, long cost, long maxDelay, Limit limit, long[][] next,
                           int index) {
        long permits = limit.permits();
        long period = limit.periodNanos();
        long step = stepped ? stepNanos(period) : 1;
        long expiry = (Math.floorDiv(now, step) + Durations.ceilDiv(period, step)) * step;

        long[] log = state != null && state.length % 2 == 0 ? state : EMPTY;
        int first = 0;
        while (first < log.length && log[first] <= now) {
            first += 2;
        }
        long used = 0;
        for (int i = first + 1; i < log.length; i += 2) {
            used += log[i];
        }
        boolean empty = first == log.length;
        long lastExpiry = empty ? now : log[log.length - 2];
        if (cost > permits) {
            next[index] = state;
            return Strategy.never(limit, permits - used, empty ? 0 : log[first] - now, lastExpiry - now);
        }
        if (used + cost > permits) {
            next[index] = state;
            long excess = used + cost - permits;
            int entry = first;
            for (long freed = log[entry + 1]; freed < excess; freed += log[entry + 1]) {
                entry += 2;
            }
            return new Decision(false, permits, permits - used, log[entry] - now, log[first] - now,
                    lastExpiry - now, 0, limit.name(), false);
        }
        long[] kept = granted(log, first, expiry, cost);
        next[index] = kept;
        long reset = cost == 0 ? lastExpiry - now : Math.max(lastExpiry, expiry) - now;
        return new Decision(true, permits, permits - used - cost, 0, kept.length == 0 ? 0 : kept[0] - now, reset, 0,
                limit.name(), false);
    }

    /** The live entries from {@code first}, plus {@code cost} permits leaving at {@code expiry}. */
    private static long[] granted(long[] log, int first, long expiry, long cost) {
        int live = log.length - first;
        if (cost == 0) {
            return first == 0 ? log : copy(log, first, live, live);
        }
        // The clock going back can make this expiry earlier than the last one; merging into the last entry keeps the
        // order and only holds the permits longer.
        if (live > 0 && log[log.length - 2] >= expiry) {
            long[] merged = copy(log, first, live, live);
            merged[live - 1] += cost;
            return merged;
        }
        long[] appended = copy(log, first, live, live + 2);
        appended[live] = expiry;
        appended[live + 1] = cost;
        return appended;
    }

    /**
     * The log whose count still in the window at any time t is the larger of the two logs' counts at t: the upper
     * envelope of two falling step functions. It never holds more permits than the fuller log did, so it stays within
     * the limit's size bound.
     */
    @Override
    public long @Nullable [] merge(long @Nullable [] a, long @Nullable [] b) {
        if (a == null || a.length % 2 != 0 || b == null || b.length % 2 != 0) {
            return a == null || a.length % 2 != 0 ? b : a;
        }
        long[] merged = new long[a.length + b.length];
        int length = 0;
        int i = a.length - 2;
        int j = b.length - 2;
        long heldA = 0;
        long heldB = 0;
        long held = 0;
        // Walk both logs from the latest expiry back, accumulating what each holds just before that expiry.
        while (i >= 0 || j >= 0) {
            long expiry = Math.max(i >= 0 ? a[i] : Long.MIN_VALUE, j >= 0 ? b[j] : Long.MIN_VALUE);
            while (i >= 0 && a[i] == expiry) {
                heldA += a[i + 1];
                i -= 2;
            }
            while (j >= 0 && b[j] == expiry) {
                heldB += b[j + 1];
                j -= 2;
            }
            long envelope = Math.max(heldA, heldB);
            if (envelope > held) {
                merged[length++] = envelope - held;
                merged[length++] = expiry;
                held = envelope;
            }
        }
        // Built latest first as (count, expiry); reverse into ascending (expiry, count) pairs.
        long[] result = new long[length];
        for (int k = 0; k < length; k += 2) {
            result[length - 2 - k] = merged[k + 1];
            result[length - 1 - k] = merged[k];
        }
        return result;
    }

    private static long[] copy(long[] log, int from, int length, int newLength) {
        long[] result = new long[newLength];
        System.arraycopy(log, from, result, 0, length);
        return result;
    }

    private static final long[] EMPTY = {};
}
