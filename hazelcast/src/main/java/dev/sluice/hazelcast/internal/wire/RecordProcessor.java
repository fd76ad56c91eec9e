package dev.sluice.hazelcast.internal.wire;

import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import org.jspecify.annotations.Nullable;

/**
 * Counts a request made some time ago ({@link Policy#record}), on the member that owns the key. It carries the
 * request's age, not an instant: the caller measured the age on its clock, and the member places the request on its
 * own timeline, as every decision reads the member's time. Wire layout: as {@link ApplyProcessor}'s, its
 * maximum delay always 0, then the age in nanoseconds (long).
 */
public final class RecordProcessor extends TimedProcessor {

    RecordProcessor() {
    }

    public RecordProcessor(Policy policy, long cost, long ageNanos) {
        super(policy, cost, ageNanos);
    }

    @Override
    Transition step(long @Nullable [][] state, long now) {
        return policy().record(state, now, cost(), nanos());
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.RECORD_PROCESSOR;
    }
}
