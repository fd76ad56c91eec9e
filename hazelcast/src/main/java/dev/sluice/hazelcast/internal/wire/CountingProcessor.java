package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.map.EntryProcessor;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What {@link RecordProcessor}, {@link ReserveProcessor} and {@link GiveBackProcessor} share with
 * {@link ApplyProcessor}: run one step of the policy on the key's owner, store the state it computed with the time to
 * live {@link WriteStateProcessor#ttlSeconds} gives, and hand Hazelcast a backup that writes that state (the backup
 * never recomputes). Kept apart from {@code ApplyProcessor}, whose call path changes on its own.
 */
public abstract class CountingProcessor extends PolicyProcessor<DecisionResult> {

    private transient @Nullable WriteStateProcessor<DecisionResult> backup;

    CountingProcessor() {
    }

    public CountingProcessor(Policy policy, long cost, long maxDelayNanos) {
        super(policy, cost, maxDelayNanos);
    }

    /** The step this processor runs on the key's state at the member's time. */
    abstract Transition step(long @Nullable [][] state, long now);

    @Override
    public DecisionResult process(Map.Entry<String, CounterState> entry) {
        CounterState current = entry.getValue();
        Transition transition = step(current == null ? null : current.state(), memberNanos());
        if (transition.changed()) {
            backup = WriteStateProcessor.stored(entry, algorithm(), transition);
        }
        return new DecisionResult(transition.decision());
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, DecisionResult> getBackupProcessor() {
        return backup;
    }
}
