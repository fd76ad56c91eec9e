package dev.sluice.hazelcast.internal.permits;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.hazelcast.internal.wire.SluiceSerializerHook;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;

/**
 * Releases a node's permit of a key, on the key's owner; nothing when it is not held (released already, ended, or
 * freed with its node), so releasing is idempotent. Answers the holders after it. Wire layout: the version,
 * the node's UUID (two longs) and the permit's number.
 */
public final class ReleasePermitProcessor extends HoldersChangingProcessor {

    private UUID node = new UUID(0, 0);
    private long number;

    ReleasePermitProcessor() {
    }

    public ReleasePermitProcessor(UUID node, long number) {
        this.node = node;
        this.number = number;
    }

    @Override
    public PermitAnswer process(Map.Entry<String, PermitHolders> entry) {
        long now = memberNanos();
        PermitHolders before = holders(entry);
        return answer(entry, before, before.without(node, number), false, now);
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        writeNode(out, node);
        out.writeLong(number);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "permit release");
        node = readNode(in);
        number = in.readLong();
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.RELEASE_PERMIT_PROCESSOR;
    }
}
