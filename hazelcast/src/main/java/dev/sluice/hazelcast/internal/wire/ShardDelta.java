package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The backup of a {@link ShardCall}: the keys it changed, each as the owner wrote it (its {@link Shard.Slot}) or
 * dropped, copied into the backup's {@link Shard}. The backup never runs the processors again (their results could
 * differ on another member's clock). Wire layout: the change count (int), then per change the key
 * (string), the version (long), whether a slot follows (boolean), and if so the slot as a {@link Shard} writes it
 * after the version.
 */
public final class ShardDelta implements EntryProcessor<String, Shard, Object>, IdentifiedDataSerializable {

    private final List<Change> changes = new ArrayList<>();

    private record Change(String key, Optional<Shard.Slot> slot, long version) {
    }

    public ShardDelta() {
    }

    /** Adds a change: {@code key} written at {@code version} as this slot, or dropped. */
    void add(String key, Optional<Shard.Slot> slot, long version) {
        changes.add(new Change(key, slot, version));
    }

    boolean isEmpty() {
        return changes.isEmpty();
    }

    /** This backup as the backup processor of a {@link ShardCall}, whose result type it never answers. */
    @SuppressWarnings("unchecked")
    <R> EntryProcessor<String, Shard, R> typed() {
        return (EntryProcessor<String, Shard, R>) (EntryProcessor<String, Shard, ?>) this;
    }

    @Override
    public @Nullable Object process(Map.Entry<String, Shard> entry) {
        Shard shard = entry.getValue() == null ? new Shard() : entry.getValue();
        for (Change change : changes) {
            shard.copy(change.key(), change.slot(), change.version());
        }
        entry.setValue(shard);
        return null;
    }

    @Override
    public @Nullable EntryProcessor<String, Shard, Object> getBackupProcessor() {
        return null;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        out.writeInt(changes.size());
        for (Change change : changes) {
            out.writeString(change.key());
            out.writeLong(change.version());
            out.writeBoolean(change.slot().isPresent());
            if (change.slot().isPresent()) {
                change.slot().get().writeData(out);
            }
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "shard backup");
        int count = in.readInt();
        if (count < 0) {
            throw new IOException("a shard backup of " + count + " changes");
        }
        for (int i = 0; i < count; i++) {
            String key = in.readString();
            long version = in.readLong();
            Optional<Shard.Slot> slot = Optional.empty();
            if (in.readBoolean()) {
                slot = Optional.of(Shard.Slot.readData(in, version));
            }
            changes.add(new Change(key, slot, version));
        }
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.SHARD_DELTA;
    }
}
