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
 * A synchronised key's owner's answer ({@link SyncProcessor}): the decision, the key's state after it (no limits:
 * no state), and the owner's time when it was made; or, from a {@link SyncTask}, that the key's call failed and its
 * hits were not counted. Wire layout (version 6): merged (boolean); when merged, the decision's fields
 * ({@link WireFormat#writeDecision}) and limit name (string), the owner's time (long), the limit count (int) and each
 * limit's state (a length, then longs).
 */
public final class SyncResult implements IdentifiedDataSerializable {

    private boolean merged;
    private @Nullable Decision decision;
    private long[][] state;
    private long ownerNanos;

    SyncResult() {
    }

    public SyncResult(Decision decision, long[][] state, long ownerNanos) {
        this.merged = true;
        this.decision = decision;
        this.state = state;
        this.ownerNanos = ownerNanos;
    }

    /** The answer for a key whose call failed: nothing was counted. */
    static SyncResult failed() {
        SyncResult failed = new SyncResult();
        failed.state = new long[0][];
        return failed;
    }

    /** Whether the owner counted the hits (false: the call failed, nothing changed). */
    public boolean merged() {
        return merged;
    }

    /**
     * The decision of the request the call carried (of cost 0 when none).
     *
     * @throws IllegalStateException when the call failed ({@link #merged()} is false)
     */
    public Decision decision() {
        if (!merged) {
            throw new IllegalStateException("the call failed: no decision");
        }
        return Objects.requireNonNull(decision, "decision");
    }

    /** The key's state on the owner after the call; no limits when the key has none. */
    public long[][] state() {
        return state;
    }

    /** The owner's time of the call, in nanoseconds. */
    public long ownerNanos() {
        return ownerNanos;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, WireFormat.SYNCS);
        out.writeBoolean(merged);
        if (merged) {
            WireFormat.writeNamedDecision(out, decision());
            out.writeLong(ownerNanos);
            WireFormat.writeStates(out, state);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "sync result", WireFormat.SYNCS);
        merged = in.readBoolean();
        if (!merged) {
            state = new long[0][];
            return;
        }
        decision = WireFormat.readNamedDecision(in);
        ownerNanos = in.readLong();
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
