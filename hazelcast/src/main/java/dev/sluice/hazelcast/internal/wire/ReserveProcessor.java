package dev.sluice.hazelcast.internal.wire;

import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import org.jspecify.annotations.Nullable;

/**
 * Takes the earliest slot within the caller's longest wait ({@link Policy#reserve}) on the member that owns the key.
 * Wire layout: as {@link ApplyProcessor}'s, the maximum delay being the longest wait.
 */
public final class ReserveProcessor extends CountingProcessor {

    ReserveProcessor() {
    }

    public ReserveProcessor(Policy policy, long cost, long maxWaitNanos) {
        super(policy, cost, maxWaitNanos);
    }

    @Override
    Transition step(long @Nullable [][] state, long now) {
        return policy().reserve(state, now, cost(), maxDelayNanos());
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.RESERVE_PROCESSOR;
    }
}
