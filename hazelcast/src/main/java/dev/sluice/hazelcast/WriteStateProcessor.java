package dev.sluice.hazelcast;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** The backup of an {@link ApplyProcessor}: writes the state the primary computed, with the same time to live. */
final class WriteStateProcessor
        implements EntryProcessor<String, CounterState, DecisionResult>, IdentifiedDataSerializable {

    private CounterState state;
    private long ttlSeconds;

    WriteStateProcessor() {
    }

    WriteStateProcessor(CounterState state, long ttlSeconds) {
        this.state = state;
        this.ttlSeconds = ttlSeconds;
    }

    @Override
    public @Nullable DecisionResult process(Map.Entry<String, CounterState> entry) {
        ((ExtendedMapEntry<String, CounterState>) entry).setValue(state, ttlSeconds, TimeUnit.SECONDS);
        return null;
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, DecisionResult> getBackupProcessor() {
        return null;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        state.writeData(out);
        out.writeLong(ttlSeconds);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "backup write");
        state = new CounterState();
        state.readData(in);
        ttlSeconds = in.readLong();
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.WRITE_STATE_PROCESSOR;
    }
}
