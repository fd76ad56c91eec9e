package dev.sluice.http;

/** Nanoseconds to the whole seconds HTTP fields carry. */
final class Seconds {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private Seconds() {
    }

    /** Whole seconds, rounded up: a wait of 1 ns is 1 s, never 0. */
    static long ceil(long nanos) {
        return nanos / NANOS_PER_SECOND + (nanos % NANOS_PER_SECOND == 0 ? 0 : 1);
    }
}
