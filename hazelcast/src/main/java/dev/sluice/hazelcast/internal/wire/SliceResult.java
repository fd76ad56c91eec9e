package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.Decision;
import java.io.IOException;

/**
 * The owner's answer to {@link CounterCommand#takeSlice} (and, with no slice, to {@link CounterCommand#count}): a
 * slice of {@link #permits()} (the decision then being the owner's on the whole slice) valid for
 * {@link #validForNanos()} after it was sent, or no slice (permits 0) and the asking request's own decision. Wire
 * layout: see {@link WireFormat}.
 */
public final class SliceResult implements IdentifiedDataSerializable {

    private Decision decision;
    private long permits;
    private long validForNanos;
    private long countedAtNanos;

    SliceResult() {
    }

    public SliceResult(Decision decision, long permits, long validForNanos, long countedAtNanos) {
        this.decision = decision;
        this.permits = permits;
        this.validForNanos = validForNanos;
        this.countedAtNanos = countedAtNanos;
    }

    public Decision decision() {
        return decision;
    }

    public long permits() {
        return permits;
    }

    public long validForNanos() {
        return validForNanos;
    }

    /** The owner's time when it counted the slice: what a return of its unused permits names. */
    public long countedAtNanos() {
        return countedAtNanos;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        WireFormat.writeNamedDecision(out, decision);
        out.writeLong(permits);
        out.writeLong(validForNanos);
        out.writeLong(countedAtNanos);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "lease result");
        decision = WireFormat.readNamedDecision(in);
        permits = in.readLong();
        validForNanos = in.readLong();
        countedAtNanos = in.readLong();
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.SLICE_RESULT;
    }
}
