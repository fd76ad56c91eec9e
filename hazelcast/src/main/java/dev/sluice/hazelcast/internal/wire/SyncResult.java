package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import java.io.IOException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A synchronised key's owner's answer to a {@link SyncProcessor}: the decision of the request it carried (of cost 0
 * when none), the key's state after (no limits: no state), and how many permits of the hits it merged did not fit
 * (the over-admission this call brought to light). Wire layout: the decision's fields
 * ({@link WireFormat#writeDecision}) and limit name (string), the over-admission (long), the limit count (int) and each
 * limit's state (a length, then longs).
 */
public final class SyncResult implements IdentifiedDataSerializable {

    private @Nullable Decision decision;
    private long[][] state;
    private long overAdmitted;

    SyncResult() {
    }

    public SyncResult(Decision decision, long[][] state, long overAdmitted) {
        this.decision = decision;
        this.state = state;
        this.overAdmitted = overAdmitted;
    }

    /** The decision of the request the call carried (of cost 0 when none). */
    public Decision decision() {
        return Objects.requireNonNull(decision, "decision");
    }

    /** The key's state on the owner after the call; no limits when the key has none. */
    public long[][] state() {
        return state;
    }

    /** Permits of the merged hits that the key had no room for when they were merged. */
    public long overAdmitted() {
        return overAdmitted;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        WireFormat.writeNamedDecision(out, decision());
        out.writeLong(overAdmitted);
        WireFormat.writeStates(out, state);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "sync result");
        decision = WireFormat.readNamedDecision(in);
        overAdmitted = in.readLong();
        int limits = in.readInt();
        if (limits < 0 || limits > Policy.MAX_LIMITS) {
            throw new IOException("a state of " + limits + " limits; at most " + Policy.MAX_LIMITS);
        }
        state = WireFormat.readStates(in, limits);
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.SYNC_RESULT;
    }
}
