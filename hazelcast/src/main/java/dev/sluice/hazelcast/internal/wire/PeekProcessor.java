package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.core.ReadOnly;
import com.hazelcast.map.EntryProcessor;
import dev.sluice.algorithm.Policy;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Evaluates a key's state on its owner without changing it; {@link ReadOnly}, so Hazelcast makes no backup. */
public final class PeekProcessor extends PolicyProcessor<DecisionResult> implements ReadOnly {

    PeekProcessor() {
    }

    public PeekProcessor(Policy policy, long cost) {
        super(policy, cost, Long.MAX_VALUE);
    }

    @Override
    public DecisionResult process(Map.Entry<String, CounterState> entry) {
        return new DecisionResult(decide(entry).decision());
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, DecisionResult> getBackupProcessor() {
        return null;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.PEEK_PROCESSOR;
    }
}
