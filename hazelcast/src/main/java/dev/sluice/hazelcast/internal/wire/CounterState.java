package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.algorithm.Algorithm;
import java.io.IOException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The value the counters map holds for a key: the algorithm's state ({@code long[]} per limit) and which algorithm
 * wrote it, so that a split-brain merge, which sees values but not policies, can reconcile two copies. Immutable once
 * built (the arrays are never modified).
 */
public final class CounterState implements IdentifiedDataSerializable {

    private Algorithm algorithm;
    private long[][] state;

    CounterState() {
    }

    public CounterState(Algorithm algorithm, long[][] state) {
        this.algorithm = algorithm;
        this.state = state;
    }

    public Algorithm algorithm() {
        return algorithm;
    }

    public long[][] state() {
        return state;
    }

    /**
     * A state at least as restrictive as both copies; when the copies come from different algorithms (the key was
     * reused for another policy) the existing one is kept.
     */
    public static @Nullable CounterState moreConsumed(@Nullable CounterState merging, @Nullable CounterState existing) {
        if (merging == null || existing == null) {
            return merging == null ? existing : merging;
        }
        if (merging.algorithm != existing.algorithm) {
            return existing;
        }
        long @Nullable [][] merged = existing.algorithm.merge(existing.state, merging.state);
        // Two states of one algorithm merge into one: merge() gives null only when both are null, and neither is.
        return new CounterState(existing.algorithm, Objects.requireNonNull(merged, "merged state"));
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        WireFormat.writeAlgorithm(out, algorithm);
        WireFormat.writeStates(out, state);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "counter state");
        algorithm = WireFormat.readAlgorithm(in);
        state = WireFormat.readStates(in, WireFormat.readLimitCount(in));
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.COUNTER_STATE;
    }
}
