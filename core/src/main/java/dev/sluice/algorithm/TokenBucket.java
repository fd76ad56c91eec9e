package dev.sluice.algorithm;

import dev.sluice.Decision;
import dev.sluice.Limit;
import org.jspecify.annotations.Nullable;

/**
 * Token bucket. State {@code [tokens, lastRefill, carry]}: whole tokens, the time they were last refilled, and the
 * permit-nanoseconds earned since then that do not yet make a whole token ({@code 0 <= carry < period}). Carrying
 * the fraction keeps the refill exact over any sequence of calls; a full bucket discards it. The next permit is the
 * next whole token: with the carried fraction, sooner than one full interval after the last refill.
 *
 * <p>A {@linkplain #record recorded} request is taken at its instant whatever is left, so tokens may go below zero: a
 * debt that the refill pays back before the next grant (no permit remains, and none is granted, until the level is
 * above zero again).
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
            return Strategy.never(limit, Math.max(0, tokens), nextToken(tokens, carry, limit),
                    refillTime(capacity - tokens, carry, limit));
        }
        if (cost > 0 && tokens < cost) {
            next[index] = state;
            return Decision.rejected(capacity, limit.name(), refillTime(cost - tokens, carry, limit))
                    .remaining(Math.max(0, tokens)).nextPermitIn(nextToken(tokens, carry, limit))
                    .resetIn(refillTime(capacity - tokens, carry, limit)).build();
        }
        tokens -= cost;
        next[index] = Strategy.holding(state, tokens, last, carry);
        return Decision.granted(capacity, limit.name()).remaining(Math.max(0, tokens))
                .nextPermitIn(nextToken(tokens, carry, limit)).resetIn(refillTime(capacity - tokens, carry, limit))
                .build();
    }

    /**
     * The bucket refilled to the request's instant {@code at} with {@code cost} tokens taken there, whatever is left:
     * below zero is a debt. When the state is already later than {@code at} (a later request counted first), the
     * tokens are taken at the state's time instead: never more permissive than at the instant, since the refill between
     * the two is capped at the capacity either way and can only be lost to a full bucket when taken first. The debt
     * saturates where {@code capacity - tokens} would overflow.
     */
    @Override
    public long[] record(long @Nullable [] state, long now, long at, long cost, Limit limit) {
        long since = state != null && state.length == 3 && state[0] < limit.capacity() ? state[1] : at;
        // A decision of cost 0 keeps the bucket refilled to its time (a fresh one when the state is of another shape).
        long[][] refilled = new long[1][];
        decide(state, Math.max(at, since), 0, 0, limit, refilled, 0);
        long[] bucket = refilled[0];
        long floor = limit.capacity() - Long.MAX_VALUE;
        long tokens = bucket[0] - Math.min(cost, bucket[0] - floor);
        return new long[] {tokens, bucket[1], bucket[2]};
    }

    /** The tokens refilled to {@code now}: below zero while a debt is being paid back. */
    @Override
    public long room(long @Nullable [] state, long now, Limit limit) {
        // A decision of cost 0 keeps the bucket refilled to now.
        long[][] refilled = new long[1][];
        decide(state, now, 0, 0, limit, refilled, 0);
        return refilled[0][0];
    }

    /**
     * The bucket refilled to {@code now} with {@code cost} tokens put back, less what the bucket without them could
     * have lost to being full: nothing while no later request has refilled it since ({@code lastRefill} still the
     * count's instant), else at most the refill of the time from the count to that later refill less the {@code kept}
     * tokens the request still holds (the bucket without the {@code cost} tokens held those {@code kept} and could not
     * be full before it had refilled them). Full: a fresh bucket.
     */
    @Override
    public long @Nullable [] undo(long @Nullable [] state, long now, long countedAt, long cost, long kept,
                                  Limit limit) {
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
        // The remainder is below period, so wrapping 64-bit arithmetic computes it exactly.
        long lostCarry = lostFor * permits - lostTokens * period;
        if (lostTokens < kept) {
            lostTokens = 0;
            lostCarry = 0;
        } else {
            lostTokens -= kept;
        }
        if (lostTokens >= cost) {
            return bucket;
        }
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

    /**
     * Nanoseconds until the permits remaining ({@code max(0, tokens)}) grow by one: until one more token, or, in debt,
     * until the level reaches one; zero when the bucket is full.
     */
    private static long nextToken(long tokens, long carry, Limit limit) {
        return tokens >= limit.capacity() ? 0 : refillTime(Math.max(0, tokens) + 1 - tokens, carry, limit);
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
