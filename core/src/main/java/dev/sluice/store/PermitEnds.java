package dev.sluice.store;

/**
 * The permits one key holds in a {@link LocalCounterStore}: permit id to the end of its hold, in two primitive arrays
 * (open addressing, linear probing, deletion by backward shift), so that taking and releasing a permit allocate
 * nothing but a table that grows. Ids are positive (0 marks a free slot). Not thread-safe: used under the key's lock.
 */
final class PermitEnds {

    private static final int FIRST_CAPACITY = 4;

    private long[] ids = new long[FIRST_CAPACITY];
    private long[] ends = new long[FIRST_CAPACITY];
    private int size;
    private long earliestEnd = Long.MAX_VALUE;
    private long latestEnd = Long.MIN_VALUE;

    /** Permits held. */
    int size() {
        return size;
    }

    /** Records permit {@code id} (positive, not held) as held until {@code end}. */
    void put(long id, long end) {
        if (2 * (size + 1) > ids.length) {
            grow();
        }
        int slot = home(id);
        while (ids[slot] != 0) {
            slot = next(slot);
        }
        ids[slot] = id;
        ends[slot] = end;
        size++;
        earliestEnd = Math.min(earliestEnd, end);
        latestEnd = Math.max(latestEnd, end);
    }

    /** Drops permit {@code id}; false when it is not held. */
    boolean remove(long id) {
        int slot = home(id);
        while (ids[slot] != id) {
            if (ids[slot] == 0) {
                return false;
            }
            slot = next(slot);
        }
        // Backward shift: move each later entry of the run whose home is not between the hole and it into the hole.
        int hole = slot;
        for (int at = next(hole); ids[at] != 0; at = next(at)) {
            int wanted = home(ids[at]);
            boolean staysPut = hole <= at ? hole < wanted && wanted <= at : hole < wanted || wanted <= at;
            if (!staysPut) {
                ids[hole] = ids[at];
                ends[hole] = ends[at];
                hole = at;
            }
        }
        ids[hole] = 0;
        size--;
        return true;
    }

    /**
     * Drops the permits whose hold ended by {@code now} (one pass, and a rebuild when any did), and sets
     * {@link #earliestEnd()} and {@link #latestEnd()} to those of the permits left.
     */
    void dropEndedBy(long now) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        boolean anyEnded = false;
        for (int slot = 0; slot < ids.length; slot++) {
            if (ids[slot] != 0) {
                if (ends[slot] <= now) {
                    anyEnded = true;
                } else {
                    first = Math.min(first, ends[slot]);
                    last = Math.max(last, ends[slot]);
                }
            }
        }
        if (anyEnded) {
            rebuild(ids.length, now);
        }
        earliestEnd = first;
        latestEnd = last;
    }

    /**
     * No permit held ends before: exact after {@link #dropEndedBy}, lower when the earliest was removed since;
     * {@code Long.MAX_VALUE} when none was held.
     */
    long earliestEnd() {
        return earliestEnd;
    }

    /**
     * No permit held ends after: exact after {@link #dropEndedBy}, higher when the latest was removed since;
     * {@code Long.MIN_VALUE} when none was held.
     */
    long latestEnd() {
        return latestEnd;
    }

    private void grow() {
        rebuild(2 * ids.length, Long.MIN_VALUE);
    }

    /** Lays the permits ending after {@code after} out again in tables of {@code capacity} slots. */
    private void rebuild(int capacity, long after) {
        long[] oldIds = ids;
        long[] oldEnds = ends;
        ids = new long[capacity];
        ends = new long[capacity];
        size = 0;
        for (int slot = 0; slot < oldIds.length; slot++) {
            if (oldIds[slot] != 0 && oldEnds[slot] > after) {
                put(oldIds[slot], oldEnds[slot]);
            }
        }
    }

    private int home(long id) {
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & (ids.length - 1);
    }

    private int next(int slot) {
        return (slot + 1) & (ids.length - 1);
    }
}
