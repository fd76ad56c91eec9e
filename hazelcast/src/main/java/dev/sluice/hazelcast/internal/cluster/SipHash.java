package dev.sluice.hazelcast.internal.cluster;

/*
 * SipHash-2-4 with its 128-bit output (Aumasson and Bernstein; the reference is github.com/veorq/SipHash), over the
 * UTF-16LE bytes of a string: each 64-bit word is four chars read straight from the string, so hashing a key copies
 * nothing and costs two rounds per four chars plus eight to finish. A keyed pseudo-random function: without the
 * 128-bit key no one can compute it, nor tell which text a hash is of, which keeps a counter key out of the maps.
 */

/** SipHash-2-4, 128-bit output, of a string's UTF-16LE bytes. Not thread-safe: one per hash. */
final class SipHash {

    private long v0;
    private long v1;
    private long v2;
    private long v3;

    private SipHash(long k0, long k1) {
        v0 = 0x736f6d6570736575L ^ k0;
        v1 = 0x646f72616e646f6dL ^ k1 ^ 0xee;
        v2 = 0x6c7967656e657261L ^ k0;
        v3 = 0x7465646279746573L ^ k1;
    }

    /**
     * The hash of {@code text} under the key {@code (k0, k1)} (the key's 16 bytes read as two little-endian longs):
     * the 16 output bytes as two little-endian longs, first then second.
     */
    static long[] hash128(long k0, long k1, String text) {
        SipHash state = new SipHash(k0, k1);
        int length = text.length();
        int whole = length & ~3;
        for (int i = 0; i < whole; i += 4) {
            state.compress(text.charAt(i) | (long) text.charAt(i + 1) << 16 | (long) text.charAt(i + 2) << 32
                    | (long) text.charAt(i + 3) << 48);
        }
        // The last word: the chars left over, and the message's length in bytes (mod 256) in its top byte.
        long last = (long) (2 * length) << 56;
        for (int i = whole; i < length; i++) {
            last |= (long) text.charAt(i) << (16 * (i - whole));
        }
        state.compress(last);
        state.v2 ^= 0xee;
        state.rounds(4);
        long first = state.v0 ^ state.v1 ^ state.v2 ^ state.v3;
        state.v1 ^= 0xdd;
        state.rounds(4);
        return new long[] {first, state.v0 ^ state.v1 ^ state.v2 ^ state.v3};
    }

    private void compress(long word) {
        v3 ^= word;
        rounds(2);
        v0 ^= word;
    }

    private void rounds(int count) {
        for (int i = 0; i < count; i++) {
            v0 += v1;
            v1 = Long.rotateLeft(v1, 13);
            v1 ^= v0;
            v0 = Long.rotateLeft(v0, 32);
            v2 += v3;
            v3 = Long.rotateLeft(v3, 16);
            v3 ^= v2;
            v0 += v3;
            v3 = Long.rotateLeft(v3, 21);
            v3 ^= v0;
            v2 += v1;
            v1 = Long.rotateLeft(v1, 17);
            v1 ^= v2;
            v2 = Long.rotateLeft(v2, 32);
        }
    }
}
