package dev.sluice.hazelcast.internal.permits;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.hazelcast.internal.wire.SluiceSerializerHook;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The backup of a permit processor on one key: writes the holders its primary computed, with the same time to live,
 * or removes the entry when none is held. Wire layout: the version, the holders, the seconds to
 * live.
 */
public final class WritePermitsProcessor
        implements EntryProcessor<String, PermitHolders, PermitAnswer>, IdentifiedDataSerializable {

    private PermitHolders holders = PermitHolders.NONE;
    private long ttlSeconds;

    WritePermitsProcessor() {
    }

    WritePermitsProcessor(PermitHolders holders, long ttlSeconds) {
        this.holders = holders;
        this.ttlSeconds = ttlSeconds;
    }

    @Override
    public @Nullable PermitAnswer process(Map.Entry<String, PermitHolders> entry) {
        PermitProcessor.write(entry, holders, ttlSeconds);
        return null;
    }

    @Override
    public @Nullable EntryProcessor<String, PermitHolders, PermitAnswer> getBackupProcessor() {
        return null;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        holders.writeData(out);
        out.writeLong(ttlSeconds);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "permits backup write");
        PermitHolders read = new PermitHolders();
        read.readData(in);
        holders = read;
        ttlSeconds = in.readLong();
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.WRITE_PERMITS_PROCESSOR;
    }
}
