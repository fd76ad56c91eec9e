package dev.sluice.hazelcast.internal.wire;

import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import org.jspecify.annotations.Nullable;

/**
 * Takes back a request that a {@link CountProcessor} counted, because another rule rejected it ({@link Policy#undo}),
 * on the key's owner at its time, with a synchronous backup that writes the state. It names the count by the owner's
 * time when it was made, so it means the same on whichever member owns the key by then. Wire layout: as
 * {@link GiveBackProcessor}'s with the request's cost and the count's time; see {@link WireFormat}.
 */
public final class UndoProcessor extends TimedProcessor {

    UndoProcessor() {
    }

    public UndoProcessor(Policy policy, long cost, long countedAtNanos) {
        super(policy, cost, countedAtNanos);
    }

    @Override
    Transition step(long @Nullable [][] state, long now) {
        return policy().undo(state, now, cost(), nanos());
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.UNDO_PROCESSOR;
    }
}
