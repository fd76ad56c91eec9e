package dev.sluice.hazelcast;

import com.hazelcast.internal.serialization.DataSerializerHook;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;

/**
 * Registers Sluice's {@link IdentifiedDataSerializable} types with Hazelcast. Listed in
 * {@code META-INF/services/com.hazelcast.DataSerializerHook}, so a member or client that has the Sluice jar on its
 * class path can (de)serialize the store's entry processors, values and merge policy with no serialization config on
 * either side, and Java serialization is never used. Their layout, versioned, is {@link WireFormat}'s.
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
    static final int WIRE_VERSION_QUESTION = 7;
    static final int BATCH_APPLY_PROCESSOR = 8;
    static final int BATCH_RESULT = 9;
    static final int RECORD_PROCESSOR = 10;
    static final int RESERVE_PROCESSOR = 11;
    static final int LEASE_PROCESSOR = 12;
    static final int LEASE_RESULT = 13;
    static final int RETURN_PROCESSOR = 14;
    static final int COUNT_PROCESSOR = 15;
    static final int UNDO_PROCESSOR = 16;

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
            case WRITE_STATE_PROCESSOR -> new WriteStateProcessor<>();
            case DECISION_RESULT -> new DecisionResult();
            case MERGE_POLICY -> new MoreConsumedMergePolicy();
            case WIRE_VERSION_QUESTION -> new WireVersionQuestion();
            case BATCH_APPLY_PROCESSOR -> new BatchApplyProcessor();
            case BATCH_RESULT -> new BatchResult();
            case RECORD_PROCESSOR -> new RecordProcessor();
            case RESERVE_PROCESSOR -> new ReserveProcessor();
            case LEASE_PROCESSOR -> new LeaseProcessor();
            case LEASE_RESULT -> new LeaseResult();
            case RETURN_PROCESSOR -> new ReturnProcessor();
            case COUNT_PROCESSOR -> new CountProcessor();
            case UNDO_PROCESSOR -> new UndoProcessor();
            default -> null;
        };
    }
}
