package dev.sluice;

import dev.sluice.internal.Durations;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How much is allowed: {@code permits} per {@code period}, and a {@code capacity} (the most that may pass at one
 * instant) for the algorithms that have one.
 *
 * <p>The capacity defaults to {@code permits}. Window algorithms require it to stay so; the token bucket, GCRA and
 * the leaky bucket accept any capacity. For GCRA and the leaky bucket, capacity is redis-cell's and nginx's
 * {@code burst + 1}: a burst of 15 is {@code withCapacity(16)}.
 *
 * <p>Every limit is validated when built, with a message naming the bad value: permits and capacity in
 * {@code [1, Long.MAX_VALUE / 2]}, a period from one nanosecond to {@link #MAX_PERIOD}, and a time to refill the
 * whole capacity ({@code capacity * period / permits}) of at most {@link #MAX_REFILL}, so that no algorithm's
 * arithmetic can overflow. Immutable and thread-safe.
 */
public final class Limit {

    /** The longest period a limit may have: 366 days. */
    public static final Duration MAX_PERIOD = Duration.ofDays(366);

    /** The longest time a limit may take to refill its whole capacity: 2^61 ns, about 73 years. */
    public static final Duration MAX_REFILL = Duration.ofNanos(1L << 61);

    /** The largest permits or capacity value. */
    public static final long MAX_PERMITS = Long.MAX_VALUE / 2;

    private final long permits;
    private final long periodNanos;
    private final long capacity;
    private final String name;
    /**
     * Computed on first use and kept (as {@code String} does): members build limits per decision, never hashing them.
     */
    private int hash;

    private Limit(long permits, long periodNanos, long capacity, String name) {
        if (permits < 1 || permits > MAX_PERMITS) {
            throw new IllegalArgumentException("permits must be between 1 and " + MAX_PERMITS + ", got " + permits);
        }
        if (periodNanos < 1 || periodNanos > MAX_PERIOD.toNanos()) {
            throw new IllegalArgumentException(
                    "period must be between 1ns and " + MAX_PERIOD + ", got " + Duration.ofNanos(periodNanos));
        }
        if (capacity < 1 || capacity > MAX_PERMITS) {
            throw new IllegalArgumentException("capacity must be between 1 and " + MAX_PERMITS + ", got " + capacity);
        }
        if (refillTooLong(permits, periodNanos, capacity)) {
            throw new IllegalArgumentException("capacity " + capacity + " at " + permits + " per "
                    + Duration.ofNanos(periodNanos) + " takes longer than " + MAX_REFILL + " to refill");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
        this.permits = permits;
        this.periodNanos = periodNanos;
        this.capacity = capacity;
        this.name = name;
    }

    /** Whether {@code capacity * period / permits} exceeds {@link #MAX_REFILL}; 128-bit only when 64 overflow. */
    private static boolean refillTooLong(long permits, long periodNanos, long capacity) {
        long product = capacity * periodNanos;
        if (Math.multiplyHigh(capacity, periodNanos) == 0 && product >= 0) {
            return product / permits > MAX_REFILL.toNanos();
        }
        return BigInteger.valueOf(capacity).multiply(BigInteger.valueOf(periodNanos))
                .divide(BigInteger.valueOf(permits)).compareTo(BigInteger.valueOf(MAX_REFILL.toNanos())) > 0;
    }

    /** {@code permits} per {@code period}, with a capacity of {@code permits} and a name such as {@code "100/1m"}. */
    public static Limit of(long permits, Duration period) {
        long periodNanos = nanos(period);
        return new Limit(permits, periodNanos, permits, permits + "/" + Durations.format(periodNanos));
    }

    private static long nanos(Duration period) {
        Objects.requireNonNull(period, "period");
        try {
            return period.toNanos();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("period must be at most " + MAX_PERIOD + ", got " + period, e);
        }
    }

    /** {@code permits} per {@code period} with the given capacity and name, in one step. */
    public static Limit of(long permits, Duration period, long capacity, String name) {
        return new Limit(permits, nanos(period), capacity, Objects.requireNonNull(name, "name"));
    }

    /** This limit with another capacity (burst size). */
    public Limit withCapacity(long newCapacity) {
        return new Limit(permits, periodNanos, newCapacity, name);
    }

    /** This limit under another name: the policy name reported in decisions and response headers. */
    public Limit named(String newName) {
        return new Limit(permits, periodNanos, capacity, Objects.requireNonNull(newName, "name"));
    }

    /** Permits granted per period; at least 1. */
    public long permits() {
        return permits;
    }

    /** The period over which {@link #permits()} are granted. */
    public Duration period() {
        return Duration.ofNanos(periodNanos);
    }

    /** The period in nanoseconds; at least 1. */
    public long periodNanos() {
        return periodNanos;
    }

    /** The most permits that may pass at one instant; at least 1. */
    public long capacity() {
        return capacity;
    }

    /** The name reported in decisions; defaults to {@code permits/period}, such as {@code "100/1m"}. */
    public String name() {
        return name;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o == this || o instanceof Limit other
                && permits == other.permits
                && periodNanos == other.periodNanos
                && capacity == other.capacity
                && name.equals(other.name);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = Objects.hash(permits, periodNanos, capacity, name);
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        return "Limit[" + name + ": " + permits + " per " + Durations.format(periodNanos)
                + (capacity == permits ? "" : ", capacity " + capacity) + "]";
    }
}
