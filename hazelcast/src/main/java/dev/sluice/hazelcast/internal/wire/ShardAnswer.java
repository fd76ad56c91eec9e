package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ShardCall}'s answer: per key, in the call's order, its processor's result and the key's version after the
 * call; the owner's time when it ran, and how many nodes (members and connected clients) the owner sees. Wire layout
 * the owner's time (long), the nodes (int), the key count (int, 1 to
 * {@link WireFormat#MAX_BATCH_REQUESTS}), then per key its version (long) and result (an object).
 */
public final class ShardAnswer implements IdentifiedDataSerializable {

    private long ownerNanos;
    private int nodes;
    private long[] versions;
    private List<@Nullable Object> results;

    ShardAnswer() {
    }

    public ShardAnswer(long ownerNanos, int nodes, long[] versions, List<@Nullable Object> results) {
        this.ownerNanos = ownerNanos;
        this.nodes = nodes;
        this.versions = versions;
        this.results = results;
    }

    /** The owner's time when the call ran, in nanoseconds. */
    public long ownerNanos() {
        return ownerNanos;
    }

    /** The members and connected clients the owner saw: how many nodes may decide on a key, or more. */
    public int nodes() {
        return nodes;
    }

    /** How many keys the call carried. */
    public int size() {
        return versions.length;
    }

    /** The version of key {@code i} after the call: a later change of any key of the shard has a larger one. */
    public long version(int i) {
        return versions[i];
    }

    /**
     * Key {@code i}'s result, of the type its processor answers.
     *
     * @throws IllegalStateException when the result is of another type (a processor other than the caller's)
     */
    public <T> T result(int i, Class<T> type) {
        Object result = results.get(i);
        if (!type.isInstance(result)) {
            throw new IllegalStateException("a shard call's key " + i + " answered " + result + ", not a "
                    + type.getSimpleName());
        }
        return type.cast(result);
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        out.writeLong(ownerNanos);
        out.writeInt(nodes);
        out.writeInt(versions.length);
        for (int i = 0; i < versions.length; i++) {
            out.writeLong(versions[i]);
            out.writeObject(results.get(i));
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "shard answer");
        ownerNanos = in.readLong();
        nodes = in.readInt();
        int count = WireFormat.readCount(in, "answers", WireFormat.MAX_BATCH_REQUESTS, Long.BYTES + 1);
        versions = new long[count];
        results = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            versions[i] = in.readLong();
            results.add(in.readObject());
        }
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.SHARD_ANSWER;
    }
}
