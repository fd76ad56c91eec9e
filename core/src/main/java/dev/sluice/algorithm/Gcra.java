package dev.sluice.algorithm;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.internal.Durations;
import org.jspecify.annotations.Nullable;

/**
 * GCRA and the leaky bucket as a queue: two readings of one timestamp, the theoretical arrival time (TAT), the
 * moment the key would be idle again. Each permit moves it forward by the emission interval {@code T = period / N}
 * (rounded up to a whole nanosecond, so the rate errs low by under 1 ns per permit).
 *
 * <p>A request of cost c arriving at {@code now} waits {@code w = max(TAT, now) - now}. It fits when
 * {@code w <= (capacity - c) * T}: as GCRA it then passes at once; as the leaky bucket it is granted the delay
 * {@code w} of its slot, and also needs {@code w} within the caller's maximum delay. Either way TAT becomes
 * {@code max(TAT, now) + c * T}. With capacity = burst + 1 this is redis-cell's CL.THROTTLE.
 *
 * <p>The permits remaining are the whole intervals of room, {@code floor((capacity * T - busy) / T)} where busy is
 * {@code TAT - now}; the next one comes when the room reaches the next whole interval, within one T. The leaky bucket
 * can also reject a request while slots remain (its slot is further away than the caller accepts); that caller's next
 * permit is the slot it can take, so the next permit of a rejection is never later than its retry.
 *
 * <p>A {@linkplain #record recorded} request moves TAT forward from its instant whatever room is left, possibly beyond
 * the burst: a debt that passing time pays back before the next grant.
 */
final class Gcra implements Strategy {

    private final boolean queue;

    Gcra(boolean queue) {
        this.queue = queue;
    }

    @Override
    public void validate(Limit limit) {
        if (limit.permits() > limit.periodNanos()) {
            throw new IllegalArgumentException((queue ? "the leaky bucket" : "GCRA")
                    + " spaces permits at least 1ns apart: limit " + limit + " asks for more than one per nanosecond");
        }
    }

    @Override
    public Decision decide(long @Nullable [] state, long now, long cost, long maxDelay, Limit limit, long[][] next,
                           int index) {
        long capacity = limit.capacity();
        long interval = Durations.ceilDiv(limit.periodNanos(), limit.permits());
        long start = state != null && state.length == 1 ? Math.max(state[0], now) : now;
        long wait = start - now;
        long full = capacity * interval;
        if (cost > capacity) {
            next[index] = state;
            return Strategy.never(limit, remaining(full - wait, interval), nextSlot(full - wait, interval, capacity),
                    wait);
        }
        long bound = (capacity - cost) * interval;
        if (queue) {
            bound = Math.min(bound, maxDelay);
        }
        if (wait > bound) {
            next[index] = state;
            return Decision.rejected(capacity, limit.name(), wait - bound).remaining(remaining(full - wait, interval))
                    .nextPermitIn(Math.min(nextSlot(full - wait, interval, capacity), wait - bound)).resetIn(wait)
                    .build();
        }
        long busyFor = wait + cost * interval;
        next[index] = new long[] {now + busyFor};
        return Decision.granted(capacity, limit.name()).remaining(remaining(full - busyFor, interval))
                .nextPermitIn(nextSlot(full - busyFor, interval, capacity)).resetIn(busyFor).delay(queue ? wait : 0)
                .build();
    }

    /** The whole intervals of room, {@code floor((capacity * T - busy) / T)}: below zero past the capacity. */
    @Override
    public long room(long @Nullable [] state, long now, Limit limit) {
        long interval = Durations.ceilDiv(limit.periodNanos(), limit.permits());
        long busy = state != null && state.length == 1 ? Math.max(state[0], now) - now : 0;
        return Math.floorDiv(Durations.saturatedAdd(-busy, limit.capacity() * interval), interval);
    }

    /**
     * TAT moved forward by {@code cost * T} from {@code max(TAT, at)}, whatever room is left (saturating): exactly the
     * request at its instant {@code at}; counted after a later request, it moves TAT at least as far as in order.
     */
    @Override
    public long[] record(long @Nullable [] state, long now, long at, long cost, Limit limit) {
        long start = state != null && state.length == 1 ? Math.max(state[0], at) : at;
        long interval = Durations.ceilDiv(limit.periodNanos(), limit.permits());
        long counted = cost > Long.MAX_VALUE / interval ? Long.MAX_VALUE : cost * interval;
        return new long[] {Durations.saturatedAdd(start, counted)};
    }

    /** GCRA: the lifetime, as the token bucket's. The queue never leases: each request gets a slot of its own. */
    @Override
    public long sliceValidity(long at, Limit limit, long lifetime) {
        return queue ? 0 : lifetime;
    }

    /**
     * The theoretical arrival time moved back by the request's {@code cost * T}, less the time since it was counted
     * beyond the {@code kept * T} the request still holds: had those permits not been counted, the key could have run
     * idle in that time (never before the kept part had passed), and a request arriving then would have started from
     * its own arrival. Exact when undone at the instant counted or when the key was idle before it; later than exact
     * by at most that time (never earlier) otherwise.
     */
    @Override
    public long @Nullable [] undo(long @Nullable [] state, long now, long countedAt, long cost, long kept,
                                  Limit limit) {
        if (state == null || state.length != 1) {
            return state;
        }
        // A granted cost (and so what it keeps) is at most the capacity, whose full span decide() computes without
        // overflow.
        long interval = Durations.ceilDiv(limit.periodNanos(), limit.permits());
        long counted = cost * interval;
        long back = counted - Math.min(counted, Math.max(0, now - countedAt - kept * interval));
        return back == 0 ? state : new long[] {state[0] - back};
    }

    /** The later theoretical arrival time: the fuller queue. */
    @Override
    public long @Nullable [] merge(long @Nullable [] a, long @Nullable [] b) {
        if (a == null || a.length != 1 || b == null || b.length != 1) {
            return a == null || a.length != 1 ? b : a;
        }
        return a[0] >= b[0] ? a : b;
    }

    private static long remaining(long room, long interval) {
        return room <= 0 ? 0 : room / interval;
    }

    /** Nanoseconds until {@link #remaining} of this room grows by one; zero when all capacity is free. */
    private static long nextSlot(long room, long interval, long capacity) {
        long remaining = remaining(room, interval);
        return remaining >= capacity ? 0 : (remaining + 1) * interval - room;
    }
}
