package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.concurrent.Callable;

/**
 * Asks a member which wire format version it reads: run by the member's executor service, it answers that member's
 * {@link WireFormat#NEWEST_READ}. Through the executor rather than a key, so it reaches every member, also one that
 * owns no partition yet.
 */
public final class WireVersionQuestion implements Callable<Integer>, IdentifiedDataSerializable {

    @Override
    public Integer call() {
        return WireFormat.NEWEST_READ;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "wire version question");
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.WIRE_VERSION_QUESTION;
    }
}
