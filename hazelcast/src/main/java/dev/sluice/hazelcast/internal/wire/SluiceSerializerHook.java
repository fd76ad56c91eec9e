package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.internal.serialization.DataSerializerHook;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.hazelcast.MoreConsumedMergePolicy;
import dev.sluice.hazelcast.internal.permits.PermitSerializables;

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
    public static final int FACTORY_ID = 1_517_423;

    public static final int COUNTER_STATE = 1;
    public static final int COUNTER_COMMAND = 2;
    public static final int PEEK_PROCESSOR = 3;
    public static final int WRITE_STATE_PROCESSOR = 4;
    public static final int DECISION_RESULT = 5;
    public static final int MERGE_POLICY = 6;
    public static final int WIRE_VERSION_QUESTION = 7;
    public static final int BATCH_APPLY_PROCESSOR = 8;
    public static final int BATCH_RESULT = 9;
    // 10 to 12 and 14 to 19 are unused: the per-operation processors of the pre-release formats.
    public static final int SLICE_RESULT = 13;
    public static final int SYNC_PROCESSOR = 20;
    public static final int SYNC_RESULT = 21;
    public static final int SHARD = 22;
    public static final int SHARD_CALL = 23;
    public static final int SHARD_ANSWER = 24;
    public static final int SHARD_DELTA = 25;
    public static final int FORGET_PROCESSOR = 26;
    // Concurrency permits (internal.permits); ids from 27, clear of the ids other work in progress takes.
    public static final int PERMIT_HOLDERS = 27;
    public static final int PERMIT_ANSWER = 28;
    public static final int ACQUIRE_PERMIT_PROCESSOR = 29;
    public static final int RELEASE_PERMIT_PROCESSOR = 30;
    public static final int FREE_NODE_PROCESSOR = 31;
    public static final int WRITE_PERMITS_PROCESSOR = 32;

    @Override
    public int getFactoryId() {
        return FACTORY_ID;
    }

    @Override
    public DataSerializableFactory createFactory() {
        return typeId -> switch (typeId) {
            case COUNTER_STATE -> new CounterState();
            case COUNTER_COMMAND -> new CounterCommand<>();
            case PEEK_PROCESSOR -> new PeekProcessor();
            case WRITE_STATE_PROCESSOR -> new WriteStateProcessor<>();
            case DECISION_RESULT -> new DecisionResult();
            case MERGE_POLICY -> new MoreConsumedMergePolicy();
            case WIRE_VERSION_QUESTION -> new WireVersionQuestion();
            case BATCH_APPLY_PROCESSOR -> new BatchApplyProcessor();
            case BATCH_RESULT -> new BatchResult();
            case SLICE_RESULT -> new SliceResult();
            case SYNC_PROCESSOR -> new SyncProcessor();
            case SYNC_RESULT -> new SyncResult();
            case SHARD -> new Shard();
            case SHARD_CALL -> new ShardCall();
            case SHARD_ANSWER -> new ShardAnswer();
            case SHARD_DELTA -> new ShardDelta();
            case FORGET_PROCESSOR -> new ForgetProcessor();
            case PERMIT_HOLDERS -> PermitSerializables.holders();
            case PERMIT_ANSWER -> PermitSerializables.answer();
            case ACQUIRE_PERMIT_PROCESSOR -> PermitSerializables.acquire();
            case RELEASE_PERMIT_PROCESSOR -> PermitSerializables.release();
            case FREE_NODE_PROCESSOR -> PermitSerializables.freeNode();
            case WRITE_PERMITS_PROCESSOR -> PermitSerializables.write();
            default -> null;
        };
    }
}
