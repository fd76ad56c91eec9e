package dev.sluice.algorithm;

import java.math.BigInteger;

/**
 * Exact integer arithmetic for rates. Products such as {@code permits * periodNanos} can exceed 64 bits for extreme
 * but valid limits (2^62 permits per year), so they take a 128-bit path; ordinary limits stay on the fast path.
 */
final class Arithmetic {

    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private Arithmetic() {
    }

    /**
     * {@code floor((a * b + c) / d)}, saturating at {@link Long#MAX_VALUE}. Requires {@code a, b >= 0},
     * {@code d > 0} and {@code a * b + c >= 0}.
     */
    static long mulAddDiv(long a, long b, long c, long d) {
        long low = a * b;
        if (Math.multiplyHigh(a, b) == 0 && low >= 0) {
            long sum = low + c;
            // Overflow is only possible when c > 0, and then shows as a negative sum.
            if (sum >= 0 || c < 0) {
                return sum / d;
            }
        }
        BigInteger exact = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).add(BigInteger.valueOf(c))
                .divide(BigInteger.valueOf(d));
        return exact.compareTo(LONG_MAX) > 0 ? Long.MAX_VALUE : exact.longValue();
    }

    /** {@code floor(a * b / d)}, saturating; {@code a, b >= 0}, {@code d > 0}. */
    static long mulDivFloor(long a, long b, long d) {
        return mulAddDiv(a, b, 0, d);
    }

    /** {@code ceil(a * b / d)}, saturating; {@code a, b >= 0}, {@code d > 0}. */
    static long mulDivCeil(long a, long b, long d) {
        return mulAddDiv(a, b, d - 1, d);
    }
}
