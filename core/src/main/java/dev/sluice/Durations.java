package dev.sluice;

/** Short human-readable durations for names and messages: {@code 1m}, {@code 250ms}, {@code 1500us}. */
final class Durations {

    private static final long[] UNIT_NANOS = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
        1_000_000_000L, 1_000_000L, 1_000L, 1L};
    private static final String[] UNIT_NAMES = {"d", "h", "m", "s", "ms", "us", "ns"};

    private Durations() {
    }

    /** The largest unit that divides {@code nanos} exactly, e.g. {@code 90s} or {@code 2m}. */
    static String format(long nanos) {
        for (int i = 0; i < UNIT_NANOS.length; i++) {
            if (nanos % UNIT_NANOS[i] == 0) {
                return nanos / UNIT_NANOS[i] + UNIT_NAMES[i];
            }
        }
        throw new AssertionError("every value is a whole number of nanoseconds");
    }
}
