package dev.sluice;

import java.time.Duration;
import java.util.Objects;

/**
 * The answer to one request for permits, and the state of its limit after it. Immutable and thread-safe. All
 * durations are in nanoseconds of the store's time source; see {@code docs/design/algorithms.md}.
 *
 * @param allowed whether the permits were granted (after {@code delayNanos}, when that is not zero)
 * @param limit the capacity of the deciding limit: the most permits that may pass at one instant
 * @param remaining permits still available right after this decision, never negative
 * @param retryAfterNanos when rejected, until the same cost would be granted, or {@link #NEVER} when it never can be
 *     (the cost exceeds the capacity); zero when allowed
 * @param nextPermitNanos until {@code remaining} grows by at least one if nothing else is consumed (the {@code t} of
 *     the {@code RateLimit} field); zero when nothing is missing; for a curable rejection, at most
 *     {@code retryAfterNanos}
 * @param resetAfterNanos until the limit is back to full capacity if nothing else is consumed
 * @param delayNanos when allowed by the leaky bucket, the wait for the caller's slot; zero otherwise
 * @param limitName the name of the limit that decided ({@link Limit#name()})
 * @param storeUnavailable true when no counter decided: a failure policy's allow or reject rule answered instead, so
 *     this decision counted nothing and its numbers describe no counter
 */
public record Decision(boolean allowed, long limit, long remaining, long retryAfterNanos, long nextPermitNanos,
                       long resetAfterNanos, long delayNanos, String limitName, boolean storeUnavailable) {

    /** The {@link #retryAfterNanos()} of a request that can never be granted. */
    public static final long NEVER = Long.MAX_VALUE;

    /** Checks the invariants every algorithm must keep. */
    public Decision {
        Objects.requireNonNull(limitName, "limitName");
        if (limit < 1 || remaining < 0 || nextPermitNanos < 0 || resetAfterNanos < 0 || delayNanos < 0) {
            throw new IllegalArgumentException("inconsistent decision: limit " + limit + ", remaining " + remaining
                    + ", nextPermit " + nextPermitNanos + ", resetAfter " + resetAfterNanos + ", delay " + delayNanos);
        }
        if (allowed ? retryAfterNanos != 0 : retryAfterNanos <= 0 || delayNanos != 0) {
            throw new IllegalArgumentException("inconsistent decision: allowed " + allowed + ", retryAfter "
                    + retryAfterNanos + ", delay " + delayNanos);
        }
        if (!allowed && retryAfterNanos != NEVER && nextPermitNanos > retryAfterNanos) {
            throw new IllegalArgumentException("inconsistent decision: rejected with retryAfter " + retryAfterNanos
                    + " but nextPermit " + nextPermitNanos + " later");
        }
    }

    /**
     * A decision that does not know when the next permit comes, such as a failure policy's: its
     * {@link #nextPermitNanos()} is an upper bound of the exact one, {@code resetAfterNanos} for a grant and the
     * earlier of {@code retryAfterNanos} and {@code resetAfterNanos} for a rejection.
     */
    public Decision(boolean allowed, long limit, long remaining, long retryAfterNanos, long resetAfterNanos,
                    long delayNanos, String limitName, boolean storeUnavailable) {
        this(allowed, limit, remaining, retryAfterNanos,
                allowed ? resetAfterNanos : Math.min(retryAfterNanos, resetAfterNanos), resetAfterNanos, delayNanos,
                limitName, storeUnavailable);
    }

    /**
     * A decision of a counter (not {@linkplain #storeUnavailable() of a failure policy}) that does not know when the
     * next permit comes; see {@link #Decision(boolean, long, long, long, long, long, String, boolean)}.
     */
    public Decision(boolean allowed, long limit, long remaining, long retryAfterNanos, long resetAfterNanos,
                    long delayNanos, String limitName) {
        this(allowed, limit, remaining, retryAfterNanos, resetAfterNanos, delayNanos, limitName, false);
    }

    /** Whether waiting can ever get this request granted; false only when its cost exceeds the capacity. */
    public boolean canSucceed() {
        return retryAfterNanos != NEVER;
    }

    /** {@link #retryAfterNanos()} as a duration; for {@link #NEVER}, the largest duration there is. */
    public Duration retryAfter() {
        return retryAfterNanos == NEVER
                ? Duration.ofSeconds(Long.MAX_VALUE, 999_999_999)
                : Duration.ofNanos(retryAfterNanos);
    }

    /** {@link #nextPermitNanos()} as a duration. */
    public Duration nextPermit() {
        return Duration.ofNanos(nextPermitNanos);
    }

    /** {@link #resetAfterNanos()} as a duration. */
    public Duration resetAfter() {
        return Duration.ofNanos(resetAfterNanos);
    }

    /** {@link #delayNanos()} as a duration. */
    public Duration delay() {
        return Duration.ofNanos(delayNanos);
    }

    /**
     * Of two decisions on one request, the one to act on: a rejection over a grant; between rejections, the longer
     * wait; between grants, the longer delay, then the fewer remaining permits.
     */
    public static Decision mostRestrictive(Decision a, Decision b) {
        if (a.allowed != b.allowed) {
            return a.allowed ? b : a;
        }
        if (!a.allowed) {
            return a.retryAfterNanos >= b.retryAfterNanos ? a : b;
        }
        if (a.delayNanos != b.delayNanos) {
            return a.delayNanos > b.delayNanos ? a : b;
        }
        return a.remaining <= b.remaining ? a : b;
    }
}
