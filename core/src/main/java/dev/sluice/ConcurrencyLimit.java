package dev.sluice;

import dev.sluice.internal.Durations;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * At most {@code permits} requests of one key in flight at once, across every node that shares the store; each held
 * permit returns when its holder releases it, or at the latest {@code maxHold} after it was taken, so that a holder
 * that never releases (a request that never ends, a crashed worker) delays others by at most that.
 *
 * <p>Every request holds one permit, whatever a rule's cost. The name reported in decisions and headers defaults to
 * {@code "N concurrent"}. Validated when built, with a message naming the bad value: permits in
 * {@code [1, MAX_PERMITS]}, a maximum hold from 1 ms to {@link Limit#MAX_PERIOD}. Immutable and thread-safe. See
 * {@code docs/design/concurrency.md}.
 */
public final class ConcurrencyLimit implements Quota {

    /** The longest a permit is held by default before it returns on its own: 5 minutes. */
    public static final Duration DEFAULT_MAX_HOLD = Duration.ofMinutes(5);

    /** The most permits one key may hold; real limits have a few hundred at most. */
    public static final long MAX_PERMITS = 1_000_000;

    private static final Duration MIN_HOLD = Duration.ofMillis(1);

    private final long permits;
    private final long maxHoldNanos;
    private final String name;

    private ConcurrencyLimit(long permits, Duration maxHold, String name) {
        if (permits < 1 || permits > MAX_PERMITS) {
            throw new IllegalArgumentException("concurrency must be between 1 and " + MAX_PERMITS + ", got " + permits);
        }
        Objects.requireNonNull(maxHold, "maxHold");
        if (maxHold.compareTo(MIN_HOLD) < 0 || maxHold.compareTo(Limit.MAX_PERIOD) > 0) {
            throw new IllegalArgumentException("maxHold must be between 1ms and " + Limit.MAX_PERIOD.toDays()
                    + "d, got " + maxHold);
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
        this.permits = permits;
        this.maxHoldNanos = maxHold.toNanos();
        this.name = name;
    }

    /** {@code permits} in flight, each held at most {@link #DEFAULT_MAX_HOLD}, named {@code "N concurrent"}. */
    public static ConcurrencyLimit of(long permits) {
        return of(permits, DEFAULT_MAX_HOLD);
    }

    /** {@code permits} in flight, each held at most {@code maxHold}, named {@code "N concurrent"}. */
    public static ConcurrencyLimit of(long permits, Duration maxHold) {
        return new ConcurrencyLimit(permits, maxHold, permits + " concurrent");
    }

    /** This limit under another name: the policy name reported in decisions and response headers. */
    public ConcurrencyLimit named(String newName) {
        return new ConcurrencyLimit(permits, maxHold(), Objects.requireNonNull(newName, "name"));
    }

    /** The most permits held at once; at least 1. */
    public long permits() {
        return permits;
    }

    /** The longest a permit is held before it returns on its own. */
    public Duration maxHold() {
        return Duration.ofNanos(maxHoldNanos);
    }

    /** {@link #maxHold()} in nanoseconds. */
    public long maxHoldNanos() {
        return maxHoldNanos;
    }

    /** The name reported in decisions; defaults to {@code "N concurrent"}. */
    public String name() {
        return name;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o == this || o instanceof ConcurrencyLimit other
                && permits == other.permits
                && maxHoldNanos == other.maxHoldNanos
                && name.equals(other.name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(permits, maxHoldNanos, name);
    }

    @Override
    public String toString() {
        return "ConcurrencyLimit[" + name + ": " + permits + " in flight, held at most "
                + Durations.format(maxHoldNanos) + "]";
    }
}
