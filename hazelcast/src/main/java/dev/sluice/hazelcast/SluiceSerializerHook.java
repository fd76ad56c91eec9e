package dev.sluice.hazelcast;

import com.hazelcast.internal.serialization.DataSerializerHook;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.io.IOException;
import java.io.InputStream;

/**
 * Registers Sluice's {@link IdentifiedDataSerializable} types with Hazelcast. Listed in
 * {@code META-INF/services/com.hazelcast.DataSerializerHook}, so a member or client that has the Sluice jar on its
 * class path can (de)serialize the store's entry processors, values and merge policy with no serialization config on
 * either side, and Java serialization is never used.
 *
 * <p>Reads check what they allocate by: bytes from a peer that name no algorithm, claim more limits than a policy can
 * hold, or a state longer than the bytes that remain, fail the one read with an {@link IOException} instead of an
 * index error or an allocation as large as the peer asks.
 *
 * <p>Public only because Hazelcast instantiates it by reflection; not part of Sluice's API. Thread-safe.
 */
public final class SluiceSerializerHook implements DataSerializerHook {

    /** Sluice's factory id; must not collide with another hook in the same cluster. */
    static final int FACTORY_ID = 1_517_423;

    static final int COUNTER_STATE = 1;
    static final int APPLY_PROCESSOR = 2;
    static final int PEEK_PROCESSOR = 3;
    static final int WRITE_STATE_PROCESSOR = 4;
    static final int DECISION_RESULT = 5;
    static final int MERGE_POLICY = 6;

    @Override
    public int getFactoryId() {
        return FACTORY_ID;
    }

    @Override
    public DataSerializableFactory createFactory() {
        return typeId -> switch (typeId) {
            case COUNTER_STATE -> new CounterState();
            case APPLY_PROCESSOR -> new ApplyProcessor();
            case PEEK_PROCESSOR -> new PeekProcessor();
            case WRITE_STATE_PROCESSOR -> new WriteStateProcessor();
            case DECISION_RESULT -> new DecisionResult();
            case MERGE_POLICY -> new MoreConsumedMergePolicy();
            default -> null;
        };
    }

    /** Reads an algorithm written as its ordinal. */
    static Algorithm readAlgorithm(ObjectDataInput in) throws IOException {
        int ordinal = in.readByte();
        Algorithm[] algorithms = Algorithm.values();
        if (ordinal < 0 || ordinal >= algorithms.length) {
            throw new IOException("no algorithm has ordinal " + ordinal);
        }
        return algorithms[ordinal];
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
