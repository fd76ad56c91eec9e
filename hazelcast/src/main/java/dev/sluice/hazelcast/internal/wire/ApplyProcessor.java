package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.map.EntryProcessor;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One decision, run on the member that owns the key: decides, counts, and sets the entry's time to live, atomically
 * (Hazelcast runs processors of one partition one at a time).
 *
 * <p>Time to live: Hazelcast keeps an entry's TTL and expiration time in whole seconds, rounding down, so a TTL taken
 * straight from {@link Transition#idleAfterNanos()} could drop a key up to a second before its state is back to full
 * capacity, granting permits early. The TTL is therefore rounded up to whole seconds plus one: a key lives at most two
 * seconds longer than it matters, and never expires while it still restricts.
 *
 * <p>The backup does not run the algorithm again (its result could differ on another member's clock): when the state
 * changed, {@link #getBackupProcessor()} hands Hazelcast a processor that writes the computed state and TTL.
 */
public final class ApplyProcessor extends PolicyProcessor<DecisionResult> {

    private transient @Nullable WriteStateProcessor<DecisionResult> backup;

    ApplyProcessor() {
    }

    public ApplyProcessor(Policy policy, long cost, long maxDelayNanos) {
        super(policy, cost, maxDelayNanos);
    }

    @Override
    public DecisionResult process(Map.Entry<String, CounterState> entry) {
        Transition transition = decide(entry);
        if (transition.changed()) {
            backup = WriteStateProcessor.stored(entry, algorithm(), transition);
        }
        return new DecisionResult(transition.decision());
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, DecisionResult> getBackupProcessor() {
        return backup;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.APPLY_PROCESSOR;
    }
}
