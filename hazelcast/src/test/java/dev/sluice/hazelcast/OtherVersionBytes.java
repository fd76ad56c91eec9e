package dev.sluice.hazelcast;

import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;

/**
 * What another release would send: a Sluice value's or processor's own bytes, with their format version replaced.
 * Serializes under the original's factory and class id, so the receiving member reads it as that type; the rest of
 * the bytes stay a valid version 1 layout, so a member that ignored the version would read them without complaint.
 * Only its bytes travel: it is never run or read.
 */
final class OtherVersionBytes implements IdentifiedDataSerializable, EntryProcessor<String, Object, Object> {

    /** Hazelcast's header before Sluice's first byte (the version): partition hash, type, flags, factory, class. */
    static final int VERSION_OFFSET = 17;

    private final int factoryId;
    private final int classId;
    private final byte[] fields;

    OtherVersionBytes(SerializationService serialization, IdentifiedDataSerializable original, int version) {
        byte[] bytes = serialization.toData(original).toByteArray();
        this.factoryId = original.getFactoryId();
        this.classId = original.getClassId();
        this.fields = Arrays.copyOfRange(bytes, VERSION_OFFSET, bytes.length);
        this.fields[0] = (byte) version;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.write(fields);
    }

    @Override
    public void readData(ObjectDataInput in) {
        throw new UnsupportedOperationException("only written, read as the original's type");
    }

    @Override
    public Object process(Map.Entry<String, Object> entry) {
        throw new UnsupportedOperationException("only its bytes travel, read as the original's type");
    }

    @Override
    public int getFactoryId() {
        return factoryId;
    }

    @Override
    public int getClassId() {
        return classId;
    }
}
