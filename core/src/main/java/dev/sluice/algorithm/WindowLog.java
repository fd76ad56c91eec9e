package dev.sluice.algorithm;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.internal.Durations;
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
 *
 * <p>The log keeps at most {@value #MAX_LOG_ENTRIES} entries, so that a grant (which copies the state, and the
 * Hazelcast store's backup with it) copies at most 16 KB whatever the limit: past that, the oldest entry's permits
 * move into the next one, held longer than their window, never shorter. Up to that many grants in a window it is
 * exact; beyond, it errs only towards refusing.
 */
final class WindowLog implements Strategy {

    /** The most entries the sliding window log keeps (the stepped window keeps one per step). */
    static final int MAX_LOG_ENTRIES = 1_000;

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
        long expiry = expiry(now, period, step);

        long[] log = state != null && state.length % 2 == 0 ? state : EMPTY;
        int first = firstLive(log, now);
        long used = used(log, first);
        boolean empty = first == log.length;
        long lastExpiry = empty ? now : log[log.length - 2];
        // Counts recorded after the fact may hold more than the permits (used > permits): then no permit is left, and
        // remaining grows only once enough of them have left. A cost of 0 only evaluates, and is never rejected.
        long remaining = Math.max(0, permits - used);
        if (cost > permits) {
            next[index] = state;
            return Strategy.never(limit, remaining, nextPermit(log, first, used, permits, now), lastExpiry - now);
        }
        if (cost > 0 && used > permits - cost) {
            next[index] = state;
            long fitsAt = leavesAt(log, first, used - (permits - cost));
            return Decision.rejected(permits, limit.name(), fitsAt - now).remaining(remaining)
                    .nextPermitIn(nextPermit(log, first, used, permits, now)).resetIn(lastExpiry - now).build();
        }
        long[] kept = granted(log, first, expiry, cost, maxEntries(limit));
        next[index] = kept;
        long usedAfter = Durations.saturatedAdd(used, cost);
        long reset = cost == 0 ? lastExpiry - now : Math.max(lastExpiry, expiry) - now;
        return Decision.granted(permits, limit.name()).remaining(Math.max(0, permits - usedAfter))
                .nextPermitIn(nextPermit(kept, 0, usedAfter, permits, now)).resetIn(reset).build();
    }

    /**
     * Nanoseconds from now until a request of {@code cost} fits, with no other request: 0 when it fits now,
     * {@link Decision#NEVER} when it never can. The permits in the log only leave as time passes, so a cost that fits
     * at some time fits at every later one.
     */
    long waitFor(long @Nullable [] state, long now, long cost, Limit limit) {
        long permits = limit.permits();
        if (cost > permits) {
            return Decision.NEVER;
        }
        long[] log = state != null && state.length % 2 == 0 ? state : EMPTY;
        int first = firstLive(log, now);
        long used = used(log, first);
        return cost == 0 || used <= permits - cost ? 0 : leavesAt(log, first, used - (permits - cost)) - now;
    }

    /** The permits less those the log still holds at {@code now}. */
    @Override
    public long room(long @Nullable [] state, long now, Limit limit) {
        long[] log = state != null && state.length % 2 == 0 ? state : EMPTY;
        return limit.permits() - used(log, firstLive(log, now));
    }

    /**
     * Counts {@code cost} permits for a request made at {@code at}, earlier or later than now, whether or not they fit:
     * the entry leaves the window when a grant at {@code at} would (for the stepped window, at the end of the step
     * holding {@code at} plus the window's steps). A request that has already left the window counts nothing. Counts
     * saturate at {@link Long#MAX_VALUE}.
     *
     * <p>Counts beyond the permits come from requests recorded after the fact; so that such a log stays bounded, a
     * past request that would make the log hold more entries than the limit has permits (or than
     * {@value #MAX_LOG_ENTRIES}, for the sliding window log) moves the oldest entry's count into the next one: it then
     * holds those permits longer than their window, never shorter. Reserved slots ({@code at} after now) are only
     * recorded where they fit, so the stepped window holds at most {@code permits * (1 + wait / period)} entries for
     * reservations up to {@code wait} ahead; the sliding window log keeps its bound for them too.
     */
    @Override
    public long @Nullable [] record(long @Nullable [] state, long now, long at, long cost, Limit limit) {
        long period = limit.periodNanos();
        long step = stepped ? stepNanos(period) : 1;
        long[] log = state != null && state.length % 2 == 0 ? state : EMPTY;
        int first = firstLive(log, now);
        // Far enough in the past to have left (also keeps the expiry's arithmetic away from overflow).
        if (at < now && now - at > period + step) {
            return state;
        }
        long expiry = expiry(at, period, step);
        if (expiry <= now) {
            return state;
        }
        long[] inserted = inserted(log, first, expiry, cost);
        if ((at <= now || !stepped) && inserted.length / 2 > maxEntries(limit)) {
            long[] merged = new long[inserted.length - 2];
            System.arraycopy(inserted, 2, merged, 0, merged.length);
            merged[1] = Durations.saturatedAdd(merged[1], inserted[1]);
            return merged;
        }
        return inserted;
    }

    /**
     * The stepped window: until the end of the step holding {@code at}, within which every grant leaves the window at
     * the same expiry. The log never leases: it records the instant of each grant.
     */
    @Override
    public long sliceValidity(long at, Limit limit, long lifetime) {
        return stepped ? Strategy.untilSpanEnd(at, stepNanos(limit.periodNanos())) : 0;
    }

    /** The stepped window: the entry of the step holding {@code at} less {@code permits}, dropped when empty. */
    @Override
    public long @Nullable [] takeBack(long @Nullable [] state, long at, long permits, Limit limit) {
        return stepped ? lessAt(state, at, permits, limit) : state;
    }

    /**
     * The entry a grant at {@code countedAt} went to (for the log, the grant's own instant) less {@code cost}, dropped
     * when empty; an entry that has left the window counts for nothing, and one no longer there leaves the log as it
     * is.
     */
    @Override
    public long @Nullable [] undo(long @Nullable [] state, long now, long countedAt, long cost, long kept,
                                  Limit limit) {
        return lessAt(state, countedAt, cost, limit);
    }

    /** The entry leaving the window when a grant at {@code at} does, less {@code permits}, dropped when empty. */
    private long @Nullable [] lessAt(long @Nullable [] state, long at, long permits, Limit limit) {
        if (state == null || state.length % 2 != 0) {
            return state;
        }
        long period = limit.periodNanos();
        long expiry = expiry(at, period, stepped ? stepNanos(period) : 1);
        for (int i = 0; i < state.length; i += 2) {
            if (state[i] == expiry) {
                if (state[i + 1] > permits) {
                    long[] less = state.clone();
                    less[i + 1] -= permits;
                    return less;
                }
                long[] dropped = new long[state.length - 2];
                System.arraycopy(state, 0, dropped, 0, i);
                System.arraycopy(state, i + 2, dropped, i, state.length - i - 2);
                return dropped;
            }
        }
        return state;
    }

    /** The most entries the log of {@code limit} keeps: its permits, for the sliding log {@value #MAX_LOG_ENTRIES}. */
    private long maxEntries(Limit limit) {
        return stepped ? limit.permits() : Math.min(limit.permits(), MAX_LOG_ENTRIES);
    }

    /** When a grant at {@code t} leaves the window: the end of its step, plus the window's length in whole steps. */
    private static long expiry(long t, long period, long step) {
        return (Math.floorDiv(t, step) + Durations.ceilDiv(period, step)) * step;
    }

    /** The index of the first entry still in the window at {@code now}. */
    private static int firstLive(long[] log, long now) {
        int first = 0;
        while (first < log.length && log[first] <= now) {
            first += 2;
        }
        return first;
    }

    /** The permits held by the entries from {@code first}, saturating. */
    private static long used(long[] log, int first) {
        long used = 0;
        for (int i = first + 1; i < log.length; i += 2) {
            used = Durations.saturatedAdd(used, log[i]);
        }
        return used;
    }

    /** The expiry of the entry, from {@code first}, at which at least {@code permits} (at least 1) have left. */
    private static long leavesAt(long[] log, int first, long permits) {
        int entry = first;
        for (long freed = log[entry + 1]; freed < permits; freed = Durations.saturatedAdd(freed, log[entry + 1])) {
            entry += 2;
        }
        return log[entry];
    }

    /**
     * Nanoseconds until the permits remaining grow: when anything leaves, if the log holds less than the permits plus
     * one; else once all but {@code permits - 1} of what it holds have left. Zero for an empty log.
     */
    private static long nextPermit(long[] log, int first, long used, long permits, long now) {
        if (first == log.length) {
            return 0;
        }
        return leavesAt(log, first, Math.max(1, used - (permits - 1))) - now;
    }

    /** The live entries from {@code first}, with {@code cost} more permits leaving at {@code expiry}, in order. */
    private static long[] inserted(long[] log, int first, long expiry, long cost) {
        int live = log.length - first;
        int at = first;
        while (at < log.length && log[at] < expiry) {
            at += 2;
        }
        if (at < log.length && log[at] == expiry) {
            long[] merged = copy(log, first, live, live);
            merged[at - first + 1] = Durations.saturatedAdd(merged[at - first + 1], cost);
            return merged;
        }
        long[] result = new long[live + 2];
        System.arraycopy(log, first, result, 0, at - first);
        result[at - first] = expiry;
        result[at - first + 1] = cost;
        System.arraycopy(log, at, result, at - first + 2, log.length - at);
        return result;
    }

    /**
     * The live entries from {@code first}, plus {@code cost} permits leaving at {@code expiry}; a new entry that would
     * make them more than {@code maxEntries} moves the oldest entry's count into the next one.
     */
    private static long[] granted(long[] log, int first, long expiry, long cost, long maxEntries) {
        int live = log.length - first;
        if (cost == 0) {
            return first == 0 ? log : copy(log, first, live, live);
        }
        // The clock going back can make this expiry earlier than the last one; merging into the last entry keeps the
        // order and only holds the permits longer.
        if (live > 0 && log[log.length - 2] >= expiry) {
            long[] merged = copy(log, first, live, live);
            merged[live - 1] = Durations.saturatedAdd(merged[live - 1], cost);
            return merged;
        }
        // Copied once, the oldest entry left out (and its count added to the next) when the log is full.
        int drop = live / 2 + 1 > maxEntries ? 2 : 0;
        long[] appended = copy(log, first + drop, live - drop, live - drop + 2);
        appended[live - drop] = expiry;
        appended[live - drop + 1] = cost;
        if (drop > 0) {
            appended[1] = Durations.saturatedAdd(appended[1], log[first + 1]);
        }
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
