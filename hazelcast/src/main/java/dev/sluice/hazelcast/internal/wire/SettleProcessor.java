package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Settles a reservation that a {@link CountProcessor} counted at its estimate, at its actual cost
 * ({@link Policy#settle}: an excess charged now, a difference below the estimate given back as of the count), on the
 * key's owner at its time, with a synchronous backup that writes the state. It names the count by the owner's time
 * when it was made, as {@link UndoProcessor} does. Wire layout: as {@link UndoProcessor}'s with the
 * estimate as the cost, then the actual cost (long); see {@link WireFormat}.
 */
public final class SettleProcessor extends TimedProcessor {

    private long actual;

    SettleProcessor() {
    }

    public SettleProcessor(Policy policy, long estimate, long actual, long countedAtNanos) {
        super(policy, estimate, countedAtNanos);
        this.actual = actual;
    }

    @Override
    Transition step(long @Nullable [][] state, long now) {
        return policy().settle(state, now, cost(), actual, nanos());
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        super.writeData(out);
        out.writeLong(actual);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        super.readData(in);
        actual = in.readLong();
        if (cost() < 1 || actual < 0) {
            throw new IOException("a settle of estimate " + cost() + " at " + actual);
        }
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.SETTLE_PROCESSOR;
    }
}
