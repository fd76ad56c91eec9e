package dev.sluice.hazelcast.internal.sync;

import java.util.Arrays;

/**
 * Hits admitted on this node, in the order admitted: each one's permits and the local time it was admitted, in two
 * primitive arrays made on the first hit (a view with none holds no array). Hits admitted within
 * {@value #SAME_INSTANT_NANOS} ns of the one before are held as one, at the later instant: a window then counts them
 * a little later than they were made, never earlier, and a key's hits of one interval stay few whatever its rate. Not
 * thread-safe: a view's lock guards it.
 */
final class Hits {

    /** The owners' clock has millisecond resolution: hits closer than this are one instant to them. */
    static final long SAME_INSTANT_NANOS = 1_000_000;

    private static final long[] NONE = new long[0];

    private long[] costs = NONE;
    private long[] localNanos = NONE;
    private int size;
    private long permits;

    void add(long cost, long atNanos) {
        if (size > 0 && atNanos - localNanos[size - 1] < SAME_INSTANT_NANOS && atNanos >= localNanos[size - 1]) {
            costs[size - 1] += cost;
            localNanos[size - 1] = atNanos;
            permits += cost;
            return;
        }
        if (size == costs.length) {
            int grown = Math.max(4, size * 2);
            costs = Arrays.copyOf(costs, grown);
            localNanos = Arrays.copyOf(localNanos, grown);
        }
        costs[size] = cost;
        localNanos[size] = atNanos;
        size++;
        permits += cost;
    }

    /** Moves every hit of {@code from} here, after these. */
    void takeAll(Hits from) {
        for (int i = 0; i < from.size; i++) {
            add(from.costs[i], from.localNanos[i]);
        }
        from.clear();
    }

    /** Moves these hits after {@code first}'s, which then become these: a failed call's hits go first again. */
    void putBehind(Hits first) {
        Hits behind = new Hits();
        behind.takeAll(first);
        behind.takeAll(this);
        costs = behind.costs;
        localNanos = behind.localNanos;
        size = behind.size;
        permits = behind.permits;
    }

    void clear() {
        costs = NONE;
        localNanos = NONE;
        size = 0;
        permits = 0;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** The permits of every hit held. */
    long permits() {
        return permits;
    }

    long cost(int i) {
        return costs[i];
    }

    long localNanos(int i) {
        return localNanos[i];
    }

    /** The costs, in order. */
    long[] costs() {
        return Arrays.copyOf(costs, size);
    }

    /** How long before {@code nowNanos} each hit was admitted, in order. */
    long[] ages(long nowNanos) {
        long[] ages = new long[size];
        for (int i = 0; i < size; i++) {
            ages[i] = Math.max(0, nowNanos - localNanos[i]);
        }
        return ages;
    }
}
