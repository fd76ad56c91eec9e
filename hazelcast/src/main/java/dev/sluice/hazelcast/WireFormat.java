package dev.sluice.hazelcast;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The versioned layout of everything Sluice sends through Hazelcast, and the checks its readers make.
 *
 * <p>Why a version: embedded members are the application's own instances, so a rolling deploy runs two Sluice
 * releases in one cluster, and each reads what the other writes (processors, results, backups, migrated and merged
 * values). Every type therefore starts its bytes with the format version, one byte, and a member refuses a version it
 * does not know instead of reading a layout it does not have. Algorithms travel as their fixed
 * {@link Algorithm#id()}, never as ordinals, so reordering the enum changes no bytes.
 *
 * <p>Each type carries the version that defined its layout: the types of version 1 keep writing 1, the types
 * version 2 added (the same-key batch of {@link BatchApplyProcessor} and its {@link BatchResult}) write 2, and the
 * types version 3 added (the leased slices of {@link LeaseProcessor}, {@link LeaseResult} and
 * {@link ReturnProcessor}) write 3, and those version 4 added (a count that can be taken back, {@link CountProcessor},
 * and {@link UndoProcessor}) write 4. A member reads versions {@value #OLDEST_READ} to {@link #NEWEST_READ}.
 *
 * <p>The rule for rolling upgrades: a caller sends a type of a newer version only once every member of the cluster has
 * said it reads that version ({@link ClusterWireVersion} asks each member when the store starts, when members join or
 * leave, and when a client reconnects); until then it sends only what the oldest member reads, and a member that
 * joins is taken to read only version {@value #OLDEST_READ} until it answers. So members of two releases run side by
 * side in any order. The system property {@value #VERSION_PROPERTY} holds a process back to an older version (the
 * oldest it may name is {@value #OLDEST_READ}): the members and callers that set it read and send nothing newer, which
 * keeps a whole cluster on the old format until the last member is upgraded, and makes rolling back safe.
 *
 * <p>Version 4 adds, after Hazelcast's header: {@link CountProcessor}: as {@link ApplyProcessor}, version 4, its
 * answer a {@link LeaseResult} without a slice (permits and validity 0) that carries the owner's time of the count;
 * {@link UndoProcessor}: as {@link ReturnProcessor}, version 4, the request's cost and the owner's time of the count.
 * A caller counts requests to take back only once every member reads version 4; until then it counts them as
 * before, and a request one rule rejects stays counted by the others (see {@code docs/design/all-or-nothing.md}).
 *
 * <p>Version 3 adds, after Hazelcast's header: {@link LeaseProcessor}: version, policy as in version 1's processors,
 * the asking request's cost, the slice asked for and the slice lifetime in nanoseconds (longs); {@link LeaseResult}:
 * version, the decision's fields as {@link DecisionResult} writes them (limit name last), then the slice's permits,
 * its validity in nanoseconds and the owner's time when it counted the slice (longs); {@link ReturnProcessor}: as
 * {@link RecordProcessor}, version 3, the permits given back as the cost and the owner's time of the slice in place of
 * the age. A caller takes slices only once every member reads version 3; until then it decides unleased.
 *
 * <p>Version 2 adds, after Hazelcast's header: {@link BatchApplyProcessor}: version, policy count (int), each policy
 * as in version 1's processors, request count (int), then per request its policy's index (int), cost and maximum delay
 * in nanoseconds (longs); {@link BatchResult}: version, decision count (int), then per decision allowed (boolean),
 * limit, remaining, retry-after, next-permit, reset-after and delay in nanoseconds (longs) and the index of the
 * deciding limit in its request's policy (byte), which the caller turns back into the limit's name. The question
 * that finds what a member reads, {@link WireVersionQuestion}, is version 1 (version only; its answer an
 * {@code Integer}), so that every release can answer it.
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

    /** The system property that holds this process back to an older format version; see the class comment. */
    static final String VERSION_PROPERTY = "sluice.wire.version";

    /** The oldest format version this release reads. */
    static final int OLDEST_READ = 1;
    /** The newest format version this release knows. */
    static final int NEWEST_KNOWN = 4;
    /** The version of the batch types. */
    static final int BATCHES = 2;
    /** The version of the leased slices' types. */
    static final int LEASES = 3;
    /** The version of the types that take a rejected request back from the rules that granted it. */
    static final int UNDOS = 4;
    /** The newest format version this process reads: {@link #NEWEST_KNOWN} unless {@value #VERSION_PROPERTY} says less. */
    static final int NEWEST_READ = newestRead(System.getProperty(VERSION_PROPERTY));

    private static final int VERSION_1 = 1;

    private WireFormat() {
    }

    /**
     * The version {@code property} names, {@link #OLDEST_READ} to {@link #NEWEST_KNOWN}; {@link #NEWEST_KNOWN} when
     * unset. A value that names no such version is logged as an ERROR and taken as {@link #OLDEST_READ}: the format
     * every release reads.
     */
    static int newestRead(@Nullable String property) {
        if (property == null) {
            return NEWEST_KNOWN;
        }
        try {
            int version = Integer.parseInt(property.trim());
            if (version >= OLDEST_READ && version <= NEWEST_KNOWN) {
                return version;
            }
        } catch (NumberFormatException e) {
            // logged below
        }
        System.getLogger(WireFormat.class.getName()).log(System.Logger.Level.ERROR, "Sluice: system property {0}={1}"
                + " names no wire format version this release knows ({2} to {3}); reading and sending version {2}",
                VERSION_PROPERTY, property, OLDEST_READ, NEWEST_KNOWN);
        return OLDEST_READ;
    }

    /** Writes version 1, the version of every type it defined. */
    static void writeVersion(ObjectDataOutput out) throws IOException {
        out.writeByte(VERSION_1);
    }

    static void writeVersion(ObjectDataOutput out, int version) throws IOException {
        out.writeByte(version);
    }

    /** Reads the leading version of {@code type}'s bytes and refuses one this process does not read. */
    static void readVersion(ObjectDataInput in, String type) throws IOException {
        readVersion(in, type, OLDEST_READ);
    }

    /** As {@link #readVersion(ObjectDataInput, String)}, for a type that version {@code since} added. */
    static void readVersion(ObjectDataInput in, String type, int since) throws IOException {
        int version = in.readByte();
        if (version < OLDEST_READ || version > NEWEST_READ) {
            throw new IOException("cannot read a " + type + " in Sluice wire format version " + version
                    + ": this member reads versions " + OLDEST_READ + " to " + NEWEST_READ
                    + " (callers send a version only once every member has said it reads it; see the README's"
                    + " rolling upgrades)");
        }
        if (version < since) {
            throw new IOException("cannot read a " + type + " in Sluice wire format version " + version + ": version "
                    + since + " added it");
        }
    }

    /**
     * Writes a decision's fields as every result carries them: allowed (boolean), then limit, remaining, retry-after,
     * next-permit, reset-after and delay in nanoseconds (longs). The limit's name is each result's own to write.
     */
    static void writeDecision(ObjectDataOutput out, Decision decision) throws IOException {
        out.writeBoolean(decision.allowed());
        out.writeLong(decision.limit());
        out.writeLong(decision.remaining());
        out.writeLong(decision.retryAfterNanos());
        out.writeLong(decision.nextPermitNanos());
        out.writeLong(decision.resetAfterNanos());
        out.writeLong(decision.delayNanos());
    }

    /** Reads what {@link #writeDecision} wrote; the limit's name is left empty, for {@link #named}. */
    static Decision readDecision(ObjectDataInput in) throws IOException {
        return new Decision(in.readBoolean(), in.readLong(), in.readLong(), in.readLong(), in.readLong(),
                in.readLong(), in.readLong(), "", false);
    }

    /** {@code read} with its limit named {@code limitName}. */
    static Decision named(Decision read, String limitName) {
        return new Decision(read.allowed(), read.limit(), read.remaining(), read.retryAfterNanos(),
                read.nextPermitNanos(), read.resetAfterNanos(), read.delayNanos(), limitName, false);
    }

    /** Writes a policy as the processors of version 1 do: algorithm id, limit count, then each limit. */
    static void writePolicy(ObjectDataOutput out, Policy policy) throws IOException {
        writeAlgorithm(out, policy.algorithm());
        out.writeInt(policy.limits().size());
        for (Limit limit : policy.limits()) {
            out.writeLong(limit.permits());
            out.writeLong(limit.periodNanos());
            out.writeLong(limit.capacity());
            out.writeString(limit.name());
        }
    }

    static Policy readPolicy(ObjectDataInput in) throws IOException {
        Algorithm algorithm = readAlgorithm(in);
        int count = readLimitCount(in);
        List<Limit> limits = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long permits = in.readLong();
            Duration period = Duration.ofNanos(in.readLong());
            limits.add(Limit.of(permits, period, in.readLong(), in.readString()));
        }
        return Policy.of(algorithm, limits);
    }

    /**
     * Reads how many items follow, 1 to {@code max}, refusing a count the remaining bytes cannot hold at
     * {@code leastBytesEach} each.
     */
    static int readCount(ObjectDataInput in, String items, int max, int leastBytesEach) throws IOException {
        int count = in.readInt();
        if (count < 1 || count > max
                || in instanceof InputStream stream && (long) count * leastBytesEach > stream.available()) {
            throw new IOException("read " + count + " " + items + ": 1 to " + max + " fit, and no more than the bytes"
                    + " that remain");
        }
        return count;
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
