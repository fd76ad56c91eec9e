package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.map.EntryProcessor;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One decision, as {@link ApplyProcessor} makes it (on the key's owner, at its time, the state stored with its time to
 * live and a synchronous backup that writes it), answered with the owner's time of the count: what an
 * {@link UndoProcessor} names to take the request back should another rule reject it. The answer is a
 * {@link SliceResult} without a slice. Wire layout: {@link ApplyProcessor}'s; see {@link WireFormat}.
 */
public final class CountProcessor extends PolicyProcessor<SliceResult> {

    private transient @Nullable WriteStateProcessor<SliceResult> backup;

    CountProcessor() {
    }

    public CountProcessor(Policy policy, long cost, long maxDelayNanos) {
        super(policy, cost, maxDelayNanos);
    }

    @Override
    public SliceResult process(Map.Entry<String, CounterState> entry) {
        CounterState current = entry.getValue();
        long now = memberNanos();
        Transition transition = policy().apply(current == null ? null : current.state(), now, cost(), maxDelayNanos());
        if (transition.changed()) {
            backup = WriteStateProcessor.stored(entry, algorithm(), transition);
        }
        return new SliceResult(transition.decision(), 0, 0, now);
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, SliceResult> getBackupProcessor() {
        return backup;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.COUNT_PROCESSOR;
    }
}
