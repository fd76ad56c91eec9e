package dev.sluice.store;

import dev.sluice.internal.SipHash;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/*
 * Why the counters are held this way (docs/design/local-store.md, "Bytes per key"): a counter key's string and a
 * ConcurrentHashMap node already cost about 100 bytes, so at 128 bytes per key there is no room for the string. A key
 * is held as a 128-bit SipHash-2-4 of it under a key drawn at random per store: the first 64 bits are the map key, the
 * top 56 of the other 64 are kept in the entry and checked, so two keys that share a slot are told apart (to 2^-120)
 * and never share a counter: the later one finds the slot taken. An entry is one long array, never modified once
 * installed:
 *
 *   [0] the instant the state is back to full capacity;
 *   [1] the check (56 bits), whether the last limit has no state (1 bit), the number of limits (7 bits, 0 for none);
 *   then per limit but the last its state's length (-1 for none) and its longs; then the last limit's longs.
 *
 * The last limit's length is what remains of the array: a one-limit state costs two longs more than itself.
 */

/**
 * The local store's counters: per key, its policy's state and the instant it expires, in one immutable {@code long[]}
 * (an entry) under a keyed 64-bit hash of the key, with the rest of a 128-bit hash kept to tell keys sharing a slot
 * apart. Entries are compared by identity ({@link #replace}), each install being a fresh array. Thread-safe.
 */
final class HashedCounters {

    private static final int EXPIRES_AT = 0;
    private static final int HEADER = 1;
    private static final int FIRST_LIMIT = 2;
    private static final int NO_STATE = -1;
    private static final int LIMITS_BITS = 7;
    private static final long LIMITS_MASK = (1L << LIMITS_BITS) - 1;
    private static final long LAST_HAS_NO_STATE = 1L << LIMITS_BITS;
    private static final long CHECK_MASK = -1L << (LIMITS_BITS + 1);

    private final ConcurrentHashMap<Long, long[]> entries = new ConcurrentHashMap<>();
    private final long k0;
    private final long k1;
    private final int slotBits;

    /** Counters under 64-bit slots. */
    HashedCounters() {
        this(Long.SIZE);
    }

    /**
     * Counters under slots of {@code slotBits} bits (1 to 64): fewer than 64 only where a test makes keys share slots,
     * to show that they are told apart.
     */
    HashedCounters(int slotBits) {
        if (slotBits < 1 || slotBits > Long.SIZE) {
            throw new IllegalArgumentException("slotBits must be 1 to 64, got " + slotBits);
        }
        SecureRandom random = new SecureRandom();
        this.k0 = random.nextLong();
        this.k1 = random.nextLong();
        this.slotBits = slotBits;
    }

    /** A key as this table holds it: its slot, and its check (the low 8 bits zero). */
    record Slot(Long slot, long check) {
    }

    Slot slotOf(String key) {
        long[] hash = SipHash.hash128(k0, k1, key);
        return new Slot(hash[0] >>> (Long.SIZE - slotBits), hash[1] & CHECK_MASK);
    }

    /** The entry in {@code key}'s slot (maybe another key's), or null when the slot is empty. */
    long @Nullable [] get(Slot key) {
        return entries.get(key.slot());
    }

    /**
     * {@code key}'s state at {@code now} as the algorithms take it, from {@code entry}, what its slot holds: null when
     * the slot holds no live counter of {@code key}'s (empty, expired, or another key's).
     */
    static long @Nullable [][] liveState(long @Nullable [] entry, Slot key, long now) {
        return entry == null || expiresAt(entry) <= now || !holds(entry, key) ? null : state(entry);
    }

    /** Whether {@code entry}, what {@code key}'s slot holds, is another key's live counter at {@code now}. */
    static boolean takenByAnother(long @Nullable [] entry, Slot key, long now) {
        return entry != null && expiresAt(entry) > now && !holds(entry, key);
    }

    private static boolean holds(long[] entry, Slot key) {
        return (entry[HEADER] & CHECK_MASK) == key.check();
    }

    /** The instant {@code entry} is back to full capacity: from then on it means nothing a fresh key would not. */
    private static long expiresAt(long[] entry) {
        return entry[EXPIRES_AT];
    }

    private static long @Nullable [][] state(long[] entry) {
        int limits = (int) (entry[HEADER] & LIMITS_MASK);
        if (limits == 0) {
            return null;
        }
        long[][] state = new long[limits][];
        int at = FIRST_LIMIT;
        for (int limit = 0; limit < limits - 1; limit++) {
            int length = (int) entry[at++];
            if (length != NO_STATE) {
                state[limit] = Arrays.copyOfRange(entry, at, at + length);
                at += length;
            }
        }
        if ((entry[HEADER] & LAST_HAS_NO_STATE) == 0) {
            state[limits - 1] = Arrays.copyOfRange(entry, at, entry.length);
        }
        return state;
    }

    /** A new entry for {@code key}: {@code state} (not kept: copied), expiring at {@code expiresAt}. */
    static long[] entry(Slot key, long @Nullable [][] state, long expiresAt) {
        if (state == null) {
            return new long[] {expiresAt, key.check()};
        }
        int limits = state.length;
        int size = FIRST_LIMIT + Math.max(0, limits - 1);
        for (int limit = 0; limit < limits; limit++) {
            long @Nullable [] limitState = state[limit];
            size += limitState == null ? 0 : limitState.length;
        }
        long[] entry = new long[size];
        entry[EXPIRES_AT] = expiresAt;
        entry[HEADER] = key.check() | limits;
        int at = FIRST_LIMIT;
        for (int limit = 0; limit < limits; limit++) {
            long @Nullable [] limitState = state[limit];
            boolean last = limit == limits - 1;
            if (limitState == null) {
                if (last) {
                    entry[HEADER] |= LAST_HAS_NO_STATE;
                } else {
                    entry[at++] = NO_STATE;
                }
            } else {
                if (!last) {
                    entry[at++] = limitState.length;
                }
                System.arraycopy(limitState, 0, entry, at, limitState.length);
                at += limitState.length;
            }
        }
        return entry;
    }

    /** Installs {@code entry} in an empty slot; whether it was empty. */
    boolean putIfAbsent(Slot key, long[] entry) {
        return entries.putIfAbsent(key.slot(), entry) == null;
    }

    /** Installs {@code next} if {@code current} (by identity) is still in the slot; whether it was. */
    boolean replace(Slot key, long[] current, long[] next) {
        return entries.replace(key.slot(), current, next);
    }

    /** Removes {@code key}'s entry, and nothing when its slot holds another key's. */
    void remove(Slot key) {
        entries.computeIfPresent(key.slot(), (slot, entry) -> holds(entry, key) ? null : entry);
    }

    /** The number of entries, expired ones not yet removed included. */
    long size() {
        return entries.mappingCount();
    }

    /** Removes every entry expired by {@code now}. */
    void removeExpired(long now) {
        entries.values().removeIf(entry -> expiresAt(entry) <= now);
    }

    /**
     * Removes the expired entries among the first {@code sample} of the map while it holds {@code maxKeys} or more;
     * whether it then holds fewer.
     */
    boolean makeRoom(long now, int sample, long maxKeys) {
        Iterator<long[]> entry = entries.values().iterator();
        for (int i = 0; i < sample && entry.hasNext() && entries.mappingCount() >= maxKeys; i++) {
            if (expiresAt(entry.next()) <= now) {
                entry.remove();
            }
        }
        return entries.mappingCount() < maxKeys;
    }

    void clear() {
        entries.clear();
    }
}
