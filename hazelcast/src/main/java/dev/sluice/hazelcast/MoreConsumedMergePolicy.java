package dev.sluice.hazelcast;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.spi.merge.MergingValue;
import com.hazelcast.spi.merge.SplitBrainMergePolicy;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.Shard;
import dev.sluice.hazelcast.internal.wire.SluiceSerializerHook;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * The split-brain merge policy of the counters map and the synchronised keys' map: when two sub-clusters that counted
 * the same key apart heal, the key keeps a state at least as restrictive as either side's, limit by limit ({@link
 * dev.sluice.algorithm.Algorithm#merge}), so the merge never grants a permit that either side had already spent.
 * Permits granted by both sides during the split are not added up: each side enforced the limit on its own.
 *
 * <p>{@link HazelcastCounterStore} configures it on the maps it creates; name it in your own map configuration as
 * {@code dev.sluice.hazelcast.MoreConsumedMergePolicy}. Stateless and thread-safe.
 */
public final class MoreConsumedMergePolicy
        implements SplitBrainMergePolicy<Object, MergingValue<Object>, Object>, IdentifiedDataSerializable {

    @Override
    public @Nullable Object merge(MergingValue<Object> merging, MergingValue<Object> existing) {
        if (existing == null) {
            return merging.getRawValue();
        }
        Object mergingValue = merging.getDeserializedValue();
        Object existingValue = existing.getDeserializedValue();
        if (mergingValue instanceof CounterState a && existingValue instanceof CounterState b) {
            return CounterState.moreConsumed(a, b);
        }
        if (mergingValue instanceof Shard a && existingValue instanceof Shard b) {
            return Shard.moreConsumed(a, b);
        }
        return existing.getRawValue();
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "merge policy");
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.MERGE_POLICY;
    }
}
