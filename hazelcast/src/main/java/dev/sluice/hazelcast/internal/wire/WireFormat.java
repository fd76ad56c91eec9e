package dev.sluice.hazelcast.internal.wire;

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
 * The versioned layout of everything Sluice sends through Hazelcast, and the checks its readers make. Every type
 * starts its bytes with the format version that defined its layout (one byte); a member reads versions
 * {@value #OLDEST_READ} to {@link #NEWEST_READ} and refuses any other, and a read that names an unknown version or
 * algorithm, or claims more than the bytes hold, fails with an {@link IOException} without touching the member's state.
 * A caller sends a newer version only once every member reads it. Algorithms travel as their fixed
 * {@link Algorithm#id()}. Layouts, the upgrade rule and the golden bytes: {@code docs/design/wire-format.md}.
 * Stateless.
 */
public final class WireFormat {

    /** The most requests one batch carries, and so the most a member reads. */
    public static final int MAX_BATCH_REQUESTS = 4_096;

    /** The system property that holds this process back to an older format version; see the class comment. */
    public static final String VERSION_PROPERTY = "sluice.wire.version";

    /** The oldest format version this release reads. */
    public static final int OLDEST_READ = 1;
    /** The newest format version this release knows, and the one it writes. */
    public static final int NEWEST_KNOWN = 1;
    /**
     * The newest format version this process reads: {@link #NEWEST_KNOWN} unless {@value #VERSION_PROPERTY} says less.
     */
    public static final int NEWEST_READ = newestRead(System.getProperty(VERSION_PROPERTY));

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

    /** Writes version {@value #NEWEST_KNOWN}, the version of every type this release defines. */
    public static void writeVersion(ObjectDataOutput out) throws IOException {
        out.writeByte(NEWEST_KNOWN);
    }

    /** Reads the leading version of {@code type}'s bytes and refuses one this process does not read. */
    public static void readVersion(ObjectDataInput in, String type) throws IOException {
        int version = in.readByte();
        if (version < OLDEST_READ || version > NEWEST_READ) {
            throw new IOException("cannot read a " + type + " in Sluice wire format version " + version
                    + ": this member reads versions " + OLDEST_READ + " to " + NEWEST_READ
                    + " (callers send a version only once every member has said it reads it; see docs/cluster.md,"
                    + " Rolling upgrades)");
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
        boolean allowed = in.readBoolean();
        long limit = in.readLong();
        long remaining = in.readLong();
        long retryAfter = in.readLong();
        long nextPermit = in.readLong();
        long resetAfter = in.readLong();
        return Decision.decided(allowed, limit, "", retryAfter).remaining(remaining).nextPermitIn(nextPermit)
                .resetIn(resetAfter).delay(in.readLong()).build();
    }

    /** Writes a decision as {@link #writeDecision} does, followed by its limit's name. */
    static void writeNamedDecision(ObjectDataOutput out, Decision decision) throws IOException {
        writeDecision(out, decision);
        out.writeString(decision.limitName());
    }

    /** Reads what {@link #writeNamedDecision} wrote. */
    static Decision readNamedDecision(ObjectDataInput in) throws IOException {
        Decision fields = readDecision(in);
        return named(fields, in.readString());
    }

    /** {@code read} with its limit named {@code limitName}. */
    static Decision named(Decision read, String limitName) {
        return Decision.from(read).named(limitName).build();
    }

    /** Writes a policy: algorithm id, limit count, then each limit. */
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

    /** Writes a key's per-limit states: their count, then each as {@link #readState} reads it. */
    static void writeStates(ObjectDataOutput out, long[][] states) throws IOException {
        out.writeInt(states.length);
        for (long[] limitState : states) {
            out.writeLongArray(limitState);
        }
    }

    /** Reads {@code count} per-limit states, the count already read and checked by the caller. */
    static long[][] readStates(ObjectDataInput in, int count) throws IOException {
        long[][] states = new long[count][];
        for (int i = 0; i < count; i++) {
            states[i] = readState(in);
        }
        return states;
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
