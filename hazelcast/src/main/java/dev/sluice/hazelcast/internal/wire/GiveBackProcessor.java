package dev.sluice.hazelcast.internal.wire;

import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import org.jspecify.annotations.Nullable;

/**
 * Gives a slice's unused permits back to the key's owner ({@link Policy#giveBack}): taken off where the slice counted
 * them while the owner's time is still in that window or step, else nothing changes. It names the slice by the
 * owner's time when it was counted, so it means the same on whichever member owns the key by then. Wire layout:
 * as {@link RecordProcessor}'s with the permits as the cost and the slice's time in place of the age.
 */
public final class GiveBackProcessor extends TimedProcessor {

    GiveBackProcessor() {
    }

    public GiveBackProcessor(Policy policy, long permits, long countedAtNanos) {
        super(policy, permits, countedAtNanos);
    }

    @Override
    Transition step(long @Nullable [][] state, long now) {
        return policy().giveBack(state, now, cost(), nanos());
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.GIVE_BACK_PROCESSOR;
    }
}
