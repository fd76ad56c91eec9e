package dev.sluice.internal;

/**
 * Arithmetic on nanosecond counts shared by every module: division rounded up (a wait in whole seconds or ticks) and
 * addition that saturates instead of overflowing (a deadline {@code now + maxWait} for an unbounded wait). Also the
 * short human-readable durations of names and messages: {@code 1m}, {@code 250ms}, {@code 1500us}. Stateless and
 * thread-safe.
 */
public final class Durations {

    private static final long[] UNIT_NANOS = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
        1_000_000_000L, 1_000_000L, 1_000L, 1L};
    private static final String[] UNIT_NAMES = {"d", "h", "m", "s", "ms", "us", "ns"};

    private Durations() {
    }

    /**
     * {@code dividend / divisor} rounded up, for {@code dividend >= 0} and {@code divisor > 0}: nanoseconds in whole
     * units of {@code divisor} nanoseconds, where a wait of 1 ns is one unit, never 0.
     */
    public static long ceilDiv(long dividend, long divisor) {
        return dividend / divisor + (dividend % divisor == 0 ? 0 : 1);
    }

    /** {@code a + b}, or {@link Long#MAX_VALUE} (or {@link Long#MIN_VALUE}) where the exact sum lies beyond it. */
    public static long saturatedAdd(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }

    /** The largest unit that divides {@code nanos} exactly, e.g. {@code 90s} or {@code 2m}. */
    public static String format(long nanos) {
        for (int i = 0; i < UNIT_NANOS.length; i++) {
            if (nanos % UNIT_NANOS[i] == 0) {
                return nanos / UNIT_NANOS[i] + UNIT_NAMES[i];
            }
        }
        throw new AssertionError("every value is a whole number of nanoseconds");
    }
}
