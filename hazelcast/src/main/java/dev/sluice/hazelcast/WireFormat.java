package dev.sluice.hazelcast;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.io.IOException;
import java.io.InputStream;

/**
 * The versioned layout of everything Sluice sends through Hazelcast, and the checks its readers make.
 *
 * <p>Why a version: embedded members are the application's own instances, so a rolling deploy runs two Sluice
 * releases in one cluster, and each reads what the other writes (processors, results, backups, migrated and merged
 * values). Every type therefore starts its bytes with the format version, one byte, and a member refuses a version it
 * does not know instead of reading a layout it does not have. Algorithms travel as their fixed
 * {@link Algorithm#id()}, never as ordinals, so reordering the enum changes no bytes.
 *
 * <p>The rule for rolling upgrades: a release reads versions {@value #OLDEST_READ} to {@value #NEWEST_READ} and writes
 * {@value #WRITTEN}, a version the previous release reads. A new version therefore ships in two releases: the first
 * reads it and still writes the old one, the next writes it. Roll from one release to the next, never across two.
 *
 * <p>Version 1, in Hazelcast's {@code ObjectDataOutput} encoding (big-endian; strings as a length and UTF-8 bytes),
 * after Hazelcast's own header (type, factory and class id):
 * <ul>
 *   <li>{@link CounterState}: version, algorithm id (byte), limit count (int), then per limit its state as a length
 *       (int) and that many longs;
 *   <li>{@link ApplyProcessor} and {@link PeekProcessor}: version, algorithm id (byte), limit count (int), then per
 *       limit permits, period in nanoseconds and capacity (longs) and name (string); then cost and maximum delay in
 *       nanoseconds (longs);
 *   <li>{@link WriteStateProcessor}: version, the {@link CounterState} as above (with its own version), time to live
 *       in seconds (long);
 *   <li>{@link DecisionResult}: version, allowed (boolean), limit, remaining, retry-after, next-permit, reset-after
 *       and delay in nanoseconds (longs), limit name (string);
 *   <li>{@link MoreConsumedMergePolicy}: version only;
 *   <li>{@link RecordProcessor}: as {@link ApplyProcessor} (its maximum delay always 0), then the request's age in
 *       nanoseconds (long);
 *   <li>{@link ReserveProcessor}: as {@link ApplyProcessor}, the maximum delay being the longest wait.
 * </ul>
 *
 * <p>Version 1 is not frozen until the first release: before it, no cluster mixes two layouts, so the unreleased
 * layout is extended in place (the next-permit time of a decision result was added so) and the golden bytes of
 * {@code WireFormatTest} changed with it. From the first release on, a change is a new version.
 *
 * <p>Reads check what they allocate by: bytes that name an unknown version or algorithm, claim more limits than a
 * policy can hold, or a state longer than the bytes that remain, fail the one read with an {@link IOException}
 * (Hazelcast hands it to the caller as a {@code HazelcastSerializationException}) instead of an index error, a
 * misread or an allocation as large as the peer asks. The member's state is never touched by a refused read.
 */
final class WireFormat {

    /** The oldest format version this release reads. */
    static final int OLDEST_READ = 1;
    /** The newest format version this release reads. */
    static final int NEWEST_READ = 1;
    /** The format version this release writes: one the previous release reads. */
    static final int WRITTEN = 1;

    private WireFormat() {
    }

    static void writeVersion(ObjectDataOutput out) throws IOException {
        out.writeByte(WRITTEN);
    }

    /** Reads the leading version of {@code type}'s bytes and refuses one this release does not read. */
    static void readVersion(ObjectDataInput in, String type) throws IOException {
        int version = in.readByte();
        if (version < OLDEST_READ || version > NEWEST_READ) {
            throw new IOException("cannot read a " + type + " in Sluice wire format version " + version
                    + ": this member reads versions " + OLDEST_READ + " to " + NEWEST_READ
                    + " (a release writes only versions the previous release reads; roll out one release at a time)");
        }
    }

    static void writeAlgorithm(ObjectDataOutput out, Algorithm algorithm) throws IOException {
        out.writeByte(algorithm.id());
    }

    /** Reads an algorithm written as its {@link Algorithm#id()}. */
    static Algorithm readAlgorithm(ObjectDataInput in) throws IOException {
        int id = in.readByte();
        return Algorithm.byId(id).orElseThrow(() -> new IOException("no algorithm has id " + id
                + " in this Sluice release (a newer release may have added it)"));
    }

    /** Reads how many limits (or per-limit states) follow: 1 to {@link Policy#MAX_LIMITS}. */
    static int readLimitCount(ObjectDataInput in) throws IOException {
        int count = in.readInt();
        if (count < 1 || count > Policy.MAX_LIMITS) {
            throw new IOException("a policy holds 1 to " + Policy.MAX_LIMITS + " limits, read " + count);
        }
        return count;
    }

    /**
     * Reads one limit's state, as {@code writeLongArray} wrote it: a length, then that many longs. Hazelcast's own
     * {@code readLongArray} allocates whatever length it reads; this refuses a length the remaining bytes cannot hold
     * (Hazelcast's inputs are {@link InputStream}s that know how many bytes remain).
     */
    static long[] readState(ObjectDataInput in) throws IOException {
        int length = in.readInt();
        if (length < 0 || in instanceof InputStream stream && (long) length * Long.BYTES > stream.available()) {
            throw new IOException("a state of " + length + " longs does not fit in the bytes that remain");
        }
        long[] state = new long[length];
        for (int i = 0; i < length; i++) {
            state[i] = in.readLong();
        }
        return state;
    }
}
