package dev.sluice.algorithm;

import dev.sluice.Decision;
import dev.sluice.Limit;
import org.jspecify.annotations.Nullable;

/**
 * Token bucket. State {@code [tokens, lastRefill, carry]}: whole tokens, the time they were last refilled, and the
 * permit-nanoseconds earned since then that do not yet make a whole token ({@code 0 <= carry < period}). Carrying
 * the fraction keeps the refill exact over any sequence of calls; a full bucket discards it. The next permit is the
 * next whole token: with the carried fraction, sooner than one full interval after the last refill.
 */
final class TokenBucket implements Strategy {

    @Override
    public Decision decide(long @Nullable [] state, long now, long cost, long maxDelay, Limit limit, long[][] next,
                           int index) {
        long capacity = limit.capacity();
        long permits = limit.permits();
        long period = limit.periodNanos();
        long tokens = capacity;
        long last = now;
        long carry = 0;
        if (state != null && state.length == 3 && state[0] < capacity) {
            tokens = state[0];
            last = state[1];
            carry = state[2];
            if (now > last) {
                long elapsed = now - last;
                long earned = Arithmetic.mulAddDiv(elapsed, permits, carry, period);
                if (earned >= capacity - tokens) {
                    tokens = capacity;
                    carry = 0;
                } else {
                    // The true remainder is below period, so wrapping 64-bit arithmetic computes it exactly.
                    carry = elapsed * permits + carry - earned * period;
                    tokens += earned;
                }
                last = now;
            }
        }
        if (cost > capacity) {
            next[index] = state;
            return Strategy.never(limit, tokens, nextToken(tokens, carry, limit),
                    refillTime(capacity - tokens, carry, limit));
        }
        if (tokens < cost) {
            next[index] = state;
            return new Decision(false, capacity, tokens, refillTime(cost - tokens, carry, limit),
                    nextToken(tokens, carry, limit), refillTime(capacity - tokens, carry, limit), 0, limit.name(),
                    false);
        }
        tokens -= cost;
        next[index] = new long[] {tokens, last, carry};
        return new Decision(true, capacity, tokens, 0, nextToken(tokens, carry, limit),
                refillTime(capacity - tokens, carry, limit), 0, limit.name(), false);
    }

    /**
     * The bucket refilled to {@code now} with {@code cost} tokens put back, less what the bucket without this request
     * could have lost to being full: nothing while no later request has refilled it since ({@code lastRefill} still
     * the count's instant), else at most the refill of the time from the count to that later refill. Full: a fresh
     * bucket.
     */
    @Override
    public long @Nullable [] undo(long @Nullable [] state, long now, long countedAt, long cost, Limit limit) {
        long capacity = limit.capacity();
        if (state == null || state.length != 3 || state[0] >= capacity) {
            return state;
        }
        long permits = limit.permits();
        long period = limit.periodNanos();
        // A decision of cost 0 keeps the bucket refilled to now.
        long[][] refilled = new long[1][];
        decide(state, now, 0, 0, limit, refilled, 0);
        long[] bucket = refilled[0];
        long tokens = bucket[0];
        long carry = bucket[2];
        long lostFor = Math.max(0, state[1] - countedAt);
        long lostTokens = Arithmetic.mulAddDiv(lostFor, permits, 0, period);
        if (lostTokens >= cost) {
            return bucket;
        }
        // The remainder is below period, so wrapping 64-bit arithmetic computes it exactly.
        long lostCarry = lostFor * permits - lostTokens * period;
        tokens += cost - lostTokens;
        if (lostCarry > 0) {
            tokens--;
            carry += period - lostCarry;
            if (carry >= period || carry < 0) {
                carry -= period;
                tokens++;
            }
        }
        return tokens >= capacity ? new long[] {capacity, bucket[1], 0} : new long[] {tokens, bucket[1], carry};
    }

    /** The lifetime: a token taken early leaves the bucket early, which only a short lifetime bounds. */
    @Override
    public long sliceValidity(long at, Limit limit, long lifetime) {
        return lifetime;
    }

    /**
     * The fewer tokens, refilled from the later instant with the smaller carried fraction: at any later time this
     * holds no more tokens than either state.
     */
    @Override
    public long @Nullable [] merge(long @Nullable [] a, long @Nullable [] b) {
        if (a == null || a.length != 3 || b == null || b.length != 3) {
            return a == null || a.length != 3 ? b : a;
        }
        return new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2])};
    }

    /** Nanoseconds until the bucket holding {@code tokens} gains one; zero when it is full. */
    private static long nextToken(long tokens, long carry, Limit limit) {
        return refillTime(Math.min(1, limit.capacity() - tokens), carry, limit);
    }

    /** Nanoseconds until {@code missing} more whole tokens have been earned, given the carried fraction. */
    private static long refillTime(long missing, long carry, Limit limit) {
        if (missing <= 0) {
            return 0;
        }
        long permits = limit.permits();
        // ceil((missing * period - carry) / permits)
        return Arithmetic.mulAddDiv(missing, limit.periodNanos(), permits - 1 - carry, permits);
    }
}
