package dev.sluice.hazelcast.internal.permits;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.hazelcast.internal.wire.SluiceSerializerHook;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;

/**
 * Frees every permit a node holds, on every key it is run on (all of them: {@code executeOnEntries}), answering how
 * many it freed there. Depends on nothing but the entry, so the backup runs the same processor (a partition-wide
 * operation has one backup processor for all its entries). Idempotent. Wire layout: the version, the node's UUID
 * (two longs).
 */
public final class FreeNodeProcessor extends PermitProcessor<Integer> {

    private UUID node = new UUID(0, 0);

    FreeNodeProcessor() {
    }

    public FreeNodeProcessor(UUID node) {
        this.node = node;
    }

    @Override
    public Integer process(Map.Entry<String, PermitHolders> entry) {
        PermitHolders before = holders(entry);
        PermitHolders after = before.withoutNode(node);
        if (after != before) {
            store(entry, after, memberNanos());
        }
        return before.size() - after.size();
    }

    @Override
    public EntryProcessor<String, PermitHolders, Integer> getBackupProcessor() {
        return this;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        writeNode(out, node);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "node's permits release");
        node = readNode(in);
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.FREE_NODE_PROCESSOR;
    }
}
