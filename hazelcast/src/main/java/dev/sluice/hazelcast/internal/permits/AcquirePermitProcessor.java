package dev.sluice.hazelcast.internal.permits;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.ConcurrencyLimit;
import dev.sluice.hazelcast.internal.wire.SluiceSerializerHook;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import dev.sluice.internal.Durations;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;

/**
 * Takes one permit of a key for a node, on the key's owner at its time: drops the holds that have ended, then adds
 * the node's permit if fewer than the limit's permits remain, with a synchronous backup that writes the same holders.
 * Wire layout: the version, permits and maximum hold (longs), the node's UUID (two longs) and
 * the permit's number.
 */
public final class AcquirePermitProcessor extends HoldersChangingProcessor {

    private long permits;
    private long maxHoldNanos;
    private UUID node = new UUID(0, 0);
    private long number;

    AcquirePermitProcessor() {
    }

    public AcquirePermitProcessor(ConcurrencyLimit limit, UUID node, long number) {
        this.permits = limit.permits();
        this.maxHoldNanos = limit.maxHoldNanos();
        this.node = node;
        this.number = number;
    }

    @Override
    public PermitAnswer process(Map.Entry<String, PermitHolders> entry) {
        long now = memberNanos();
        PermitHolders before = holders(entry);
        PermitHolders current = before.withoutEnded(now);
        boolean taken = current.size() < permits;
        PermitHolders after = taken ? current.with(node, number, Durations.saturatedAdd(now, maxHoldNanos)) : current;
        return answer(entry, before, after, taken, now);
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        out.writeLong(permits);
        out.writeLong(maxHoldNanos);
        writeNode(out, node);
        out.writeLong(number);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "permit acquisition");
        permits = in.readLong();
        maxHoldNanos = in.readLong();
        node = readNode(in);
        number = in.readLong();
        if (permits < 1 || permits > ConcurrencyLimit.MAX_PERMITS || maxHoldNanos < 1) {
            throw new IOException("a permit acquisition of " + permits + " permits held at most " + maxHoldNanos
                    + " ns");
        }
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.ACQUIRE_PERMIT_PROCESSOR;
    }
}
