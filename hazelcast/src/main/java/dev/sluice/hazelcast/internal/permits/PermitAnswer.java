package dev.sluice.hazelcast.internal.permits;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.hazelcast.internal.wire.SluiceSerializerHook;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import java.io.IOException;

/**
 * What a key's owner answers to a permit processor: whether the permit was taken, how many are held after the call,
 * and how long (nanoseconds of the owner's time, from the call) until the earliest and the latest hold end. Immutable
 * once read. Wire layout: the version, a boolean, an int and two longs.
 */
public final class PermitAnswer implements IdentifiedDataSerializable {

    private boolean taken;
    private int held;
    private long untilFirstEnd;
    private long untilLastEnd;

    PermitAnswer() {
    }

    PermitAnswer(boolean taken, PermitHolders after, long now) {
        this.taken = taken;
        this.held = after.size();
        this.untilFirstEnd = after.isEmpty() ? 0 : Math.max(0, after.firstEnd() - now);
        this.untilLastEnd = after.isEmpty() ? 0 : Math.max(0, after.lastEnd() - now);
    }

    /**
     * The decision under {@code limit}: for a grant, the permits left free; for a rejection, a retry-after of the
     * earliest held permit's end (the latest instant at which one returns with nobody releasing it), as the local
     * store answers; for a release ({@code look}), a bare look at the permits held after it.
     */
    Decision decision(ConcurrencyLimit limit, boolean look) {
        long permits = limit.permits();
        long free = Math.max(0, permits - held);
        if (taken || look) {
            return Decision.granted(permits, limit.name()).remaining(free).nextPermitIn(free == 0 ? untilFirstEnd : 0)
                    .resetIn(untilLastEnd).build();
        }
        long retry = Math.max(1, untilFirstEnd);
        return Decision.rejected(permits, limit.name(), retry).nextPermitIn(retry)
                .resetIn(Math.max(retry, untilLastEnd)).build();
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        out.writeBoolean(taken);
        out.writeInt(held);
        out.writeLong(untilFirstEnd);
        out.writeLong(untilLastEnd);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "permit answer");
        taken = in.readBoolean();
        held = in.readInt();
        untilFirstEnd = in.readLong();
        untilLastEnd = in.readLong();
        if (held < 0 || untilFirstEnd < 0 || untilLastEnd < 0) {
            throw new IOException("a permit answer of " + held + " held, ends in " + untilFirstEnd + " and "
                    + untilLastEnd + " ns");
        }
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.PERMIT_ANSWER;
    }
}
