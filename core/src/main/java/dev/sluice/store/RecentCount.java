package dev.sluice.store;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts events over the last minute, in one-second buckets, without locks.
 *
 * <p>Each of the 60 buckets packs the second it counts (the upper 24 bits: seconds modulo 2^24, about 194 days) and its
 * count (the lower {@value #COUNT_BITS} bits) into one {@code long}, so moving a bucket to a new second and counting in
 * it is one compare-and-set: no event is lost to a race between resetting a bucket and counting in it. Used on failure
 * paths only, where a shed storm may count tens of thousands of events a second from many threads. Thread-safe.
 */
final class RecentCount {

    private static final int SECONDS = 60;
    private static final int COUNT_BITS = 40;
    private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
    private static final long SECOND_MODULUS = 1L << (Long.SIZE - COUNT_BITS);
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final AtomicLongArray buckets = new AtomicLongArray(SECONDS);

    /** Counts one event at {@code nowNanos}. */
    void increment(long nowNanos) {
        long second = second(nowNanos);
        int index = (int) Math.floorMod(second, (long) SECONDS);
        long stamp = second << COUNT_BITS; // keeps the second modulo 2^24 in the upper bits
        while (true) {
            long bucket = buckets.get(index);
            long next = (bucket & ~COUNT_MASK) == stamp ? bucket + 1 : stamp | 1;
            if ((next & COUNT_MASK) == 0) {
                return; // 2^40 events in one second: saturated
            }
            if (buckets.compareAndSet(index, bucket, next)) {
                return;
            }
        }
    }

    /** The events counted in the 60 seconds up to and including the one of {@code nowNanos}. */
    long lastMinute(long nowNanos) {
        long now = Math.floorMod(second(nowNanos), SECOND_MODULUS);
        long total = 0;
        for (int i = 0; i < SECONDS; i++) {
            long bucket = buckets.get(i);
            long age = Math.floorMod(now - (bucket >>> COUNT_BITS), SECOND_MODULUS);
            if (bucket != 0 && age < SECONDS) {
                total += bucket & COUNT_MASK;
            }
        }
        return total;
    }

    private static long second(long nanos) {
        return Math.floorDiv(nanos, NANOS_PER_SECOND);
    }
}
