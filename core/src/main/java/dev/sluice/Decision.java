package dev.sluice;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The answer to one request for permits, and the state of its limit after it. Immutable and thread-safe. All
 * durations are in nanoseconds of the store's time source; see {@code docs/design/algorithms.md}.
 *
 * <p>Built by name, never by position: {@link #granted} or {@link #rejected}, then the figures that are not zero.
 *
 * <pre>{@code
 * Decision.granted(10, "api:10/1m").remaining(9).nextPermitIn(0).resetIn(6_000_000_000L).build()
 * }</pre>
 *
 * <p>The figures:
 * <ul>
 *   <li>{@link #allowed()}: whether the permits were granted (after {@link #delayNanos()}, when that is not zero);
 *   <li>{@link #limit()}: the capacity of the deciding limit, the most permits that may pass at one instant;
 *   <li>{@link #remaining()}: permits still available right after this decision, never negative;
 *   <li>{@link #retryAfterNanos()}: when rejected, until the same cost would be granted, or {@link #NEVER} when it
 *       never can be (the cost exceeds the capacity); zero when allowed;
 *   <li>{@link #nextPermitNanos()}: until {@code remaining} grows by at least one if nothing else is consumed (the
 *       {@code t} of the {@code RateLimit} field); zero when nothing is missing; for a curable rejection, at most
 *       {@code retryAfterNanos};
 *   <li>{@link #resetAfterNanos()}: until the limit is back to full capacity if nothing else is consumed;
 *   <li>{@link #delayNanos()}: when allowed by the leaky bucket, the wait for the caller's slot; zero otherwise;
 *   <li>{@link #limitName()}: the name of the limit that decided ({@link Limit#name()});
 *   <li>{@link #storeUnavailable()}: true when no counter decided, a failure policy's allow or reject rule answered
 *       instead, so this decision counted nothing and its numbers describe no counter.
 * </ul>
 */
public final class Decision {

    /** The {@link #retryAfterNanos()} of a request that can never be granted. */
    public static final long NEVER = Long.MAX_VALUE;

    private final boolean allowed;
    private final long limit;
    private final long remaining;
    private final long retryAfterNanos;
    private final long nextPermitNanos;
    private final long resetAfterNanos;
    private final long delayNanos;
    private final String limitName;
    private final boolean storeUnavailable;

    private Decision(Builder b) {
        this.allowed = b.allowed;
        this.limit = b.limit;
        this.remaining = b.remaining;
        this.retryAfterNanos = b.retryAfterNanos;
        // Not said: the next permit is no later than full capacity (and, rejected, than the retry).
        this.nextPermitNanos = b.nextPermitSaid ? b.nextPermitNanos
                : allowed ? b.resetAfterNanos : Math.min(b.retryAfterNanos, b.resetAfterNanos);
        this.resetAfterNanos = b.resetAfterNanos;
        this.delayNanos = b.delayNanos;
        this.limitName = Objects.requireNonNull(b.limitName, "limitName");
        this.storeUnavailable = b.storeUnavailable;
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

    /** A grant by the limit {@code limitName} of capacity {@code limit}; every other figure zero until set. */
    public static Builder granted(long limit, String limitName) {
        return new Builder(true, limit, limitName, 0);
    }

    /**
     * A rejection by the limit {@code limitName} of capacity {@code limit}, the same cost granted after
     * {@code retryAfterNanos} ({@link #NEVER}: it never can be); every other figure zero until set.
     */
    public static Builder rejected(long limit, String limitName, long retryAfterNanos) {
        return new Builder(false, limit, limitName, retryAfterNanos);
    }

    /**
     * A decision read back as it was stored or sent: granted or not, with its retry as it came (a grant with a retry
     * is refused by {@link Builder#build()}, as any contradiction is).
     */
    public static Builder decided(boolean allowed, long limit, String limitName, long retryAfterNanos) {
        return new Builder(allowed, limit, limitName, retryAfterNanos);
    }

    /** A builder holding {@code decision}'s figures, to change some. */
    public static Builder from(Decision decision) {
        Builder b = new Builder(decision.allowed, decision.limit, decision.limitName, decision.retryAfterNanos);
        b.remaining = decision.remaining;
        b.nextPermitIn(decision.nextPermitNanos);
        b.resetAfterNanos = decision.resetAfterNanos;
        b.delayNanos = decision.delayNanos;
        b.storeUnavailable = decision.storeUnavailable;
        return b;
    }

    /** Whether the permits were granted (after {@link #delayNanos()}, when that is not zero). */
    public boolean allowed() {
        return allowed;
    }

    /** The capacity of the deciding limit: the most permits that may pass at one instant. */
    public long limit() {
        return limit;
    }

    /** Permits still available right after this decision, never negative. */
    public long remaining() {
        return remaining;
    }

    /** When rejected, until the same cost would be granted, or {@link #NEVER}; zero when allowed. */
    public long retryAfterNanos() {
        return retryAfterNanos;
    }

    /** Until {@link #remaining()} grows by at least one if nothing else is consumed; zero when nothing is missing. */
    public long nextPermitNanos() {
        return nextPermitNanos;
    }

    /** Until the limit is back to full capacity if nothing else is consumed. */
    public long resetAfterNanos() {
        return resetAfterNanos;
    }

    /** When allowed by the leaky bucket, the wait for the caller's slot; zero otherwise. */
    public long delayNanos() {
        return delayNanos;
    }

    /** The name of the limit that decided ({@link Limit#name()}). */
    public String limitName() {
        return limitName;
    }

    /** True when no counter decided: a failure policy's allow or reject rule answered, counting nothing. */
    public boolean storeUnavailable() {
        return storeUnavailable;
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

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Decision d && allowed == d.allowed && limit == d.limit && remaining == d.remaining
                && retryAfterNanos == d.retryAfterNanos && nextPermitNanos == d.nextPermitNanos
                && resetAfterNanos == d.resetAfterNanos && delayNanos == d.delayNanos
                && limitName.equals(d.limitName) && storeUnavailable == d.storeUnavailable;
    }

    @Override
    public int hashCode() {
        return Objects.hash(allowed, limit, remaining, retryAfterNanos, nextPermitNanos, resetAfterNanos, delayNanos,
                limitName, storeUnavailable);
    }

    @Override
    public String toString() {
        return "Decision[allowed=" + allowed + ", limit=" + limit + ", remaining=" + remaining + ", retryAfterNanos="
                + retryAfterNanos + ", nextPermitNanos=" + nextPermitNanos + ", resetAfterNanos=" + resetAfterNanos
                + ", delayNanos=" + delayNanos + ", limitName=" + limitName + ", storeUnavailable=" + storeUnavailable
                + "]";
    }

    /**
     * The figures of a decision, each by name; {@link #build()} checks them together. Not thread-safe; made per
     * decision and dropped (cheap enough to be taken apart by the JIT on the decision path).
     */
    public static final class Builder {
        private final boolean allowed;
        private final long limit;
        private String limitName;
        private final long retryAfterNanos;
        private long remaining;
        private long nextPermitNanos;
        /** Whether {@link #nextPermitNanos} was said; if not, it is the latest the other figures allow. */
        private boolean nextPermitSaid;
        private long resetAfterNanos;
        private long delayNanos;
        private boolean storeUnavailable;

        private Builder(boolean allowed, long limit, String limitName, long retryAfterNanos) {
            this.allowed = allowed;
            this.limit = limit;
            this.limitName = limitName;
            this.retryAfterNanos = retryAfterNanos;
        }

        /** Permits still available right after the decision; zero unless set. */
        public Builder remaining(long permits) {
            this.remaining = permits;
            return this;
        }

        /**
         * Until one more permit is available; unless set, the latest it can be: full capacity for a grant, the earlier
         * of the retry and full capacity for a rejection (what a decision that does not know it says).
         */
        public Builder nextPermitIn(long nanos) {
            this.nextPermitNanos = nanos;
            this.nextPermitSaid = true;
            return this;
        }

        /** Until the limit is back to full capacity; zero unless set. */
        public Builder resetIn(long nanos) {
            this.resetAfterNanos = nanos;
            return this;
        }

        /** The wait for a leaky bucket's slot; zero unless set. */
        public Builder delay(long nanos) {
            this.delayNanos = nanos;
            return this;
        }

        /** The decision of the limit named {@code name} instead. */
        public Builder named(String name) {
            this.limitName = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Marks the decision as a failure policy's: no counter decided it. */
        public Builder storeUnavailable() {
            this.storeUnavailable = true;
            return this;
        }

        /**
         * The decision.
         *
         * @throws IllegalArgumentException when the figures contradict each other: a negative figure, a grant with a
         *     retry, a rejection with a delay or without a retry, a next permit after the retry
         */
        public Decision build() {
            return new Decision(this);
        }
    }
}
