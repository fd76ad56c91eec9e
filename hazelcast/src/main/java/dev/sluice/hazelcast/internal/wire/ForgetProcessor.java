package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Forgets a synchronised key's counters (in a {@link ShardCall}): what {@code reset} does to a key of the counters
 * map. Answers nothing. Wire layout: the version only.
 */
public final class ForgetProcessor implements EntryProcessor<String, CounterState, Object>, IdentifiedDataSerializable {

    public ForgetProcessor() {
    }

    @Override
    public @Nullable Object process(Map.Entry<String, CounterState> entry) {
        if (entry.getValue() != null) {
            entry.setValue(null);
        }
        return null;
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, Object> getBackupProcessor() {
        return null;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "forget processor");
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.FORGET_PROCESSOR;
    }
}
