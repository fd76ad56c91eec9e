package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.IMap;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One node's synchronisation message to one member: per synchronised key that member owns, a {@link SyncProcessor}
 * with the hits the node admitted. Run on that member (an executor's {@code submitToMember}), it submits every key's
 * processor on the counters map there, locally for the keys it still owns: each is a normal keyed invocation, which
 * completes only after its synchronous backups, exactly as a call from the node would. The answer lists one
 * {@link SyncResult} per key in order; a key whose call failed answers {@link SyncResult#merged()} false, and its node
 * keeps the hits to send again. Wire layout (version 6): the map name (string), the key count (int, 1 to
 * {@link WireFormat#MAX_BATCH_REQUESTS}), then per key its name (string) and processor. Design:
 * {@code docs/design/synchronised.md}.
 */
public final class SyncTask implements Callable<ArrayList<SyncResult>>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private String mapName;
    private List<String> keys;
    private List<SyncProcessor> processors;
    private transient HazelcastInstance member;

    SyncTask() {
    }

    public SyncTask(String mapName, List<String> keys, List<SyncProcessor> processors) {
        if (keys.size() != processors.size() || keys.isEmpty() || keys.size() > WireFormat.MAX_BATCH_REQUESTS) {
            throw new IllegalArgumentException("a sync task carries 1 to " + WireFormat.MAX_BATCH_REQUESTS
                    + " keys, each with its processor; got " + keys.size() + " keys, " + processors.size());
        }
        this.mapName = mapName;
        this.keys = List.copyOf(keys);
        this.processors = List.copyOf(processors);
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    @Override
    public ArrayList<SyncResult> call() throws InterruptedException {
        IMap<String, CounterState> map = member.getMap(mapName);
        List<CompletableFuture<SyncResult>> calls = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            calls.add(map.submitToKey(keys.get(i), processors.get(i)).toCompletableFuture());
        }
        ArrayList<SyncResult> results = new ArrayList<>(calls.size());
        for (CompletableFuture<SyncResult> call : calls) {
            try {
                results.add(call.get());
            } catch (ExecutionException e) {
                results.add(SyncResult.failed());
            }
        }
        return results;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, WireFormat.SYNCS);
        out.writeString(mapName);
        out.writeInt(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            out.writeString(keys.get(i));
            out.writeObject(processors.get(i));
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "sync task", WireFormat.SYNCS);
        mapName = in.readString();
        int count = WireFormat.readCount(in, "keys", WireFormat.MAX_BATCH_REQUESTS, 2 * Integer.BYTES);
        List<String> readKeys = new ArrayList<>(count);
        List<SyncProcessor> readProcessors = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            readKeys.add(in.readString());
            if (!(in.readObject() instanceof SyncProcessor processor)) {
                throw new IOException("a sync task's key without its sync processor");
            }
            readProcessors.add(processor);
        }
        keys = readKeys;
        processors = readProcessors;
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.SYNC_TASK;
    }
}
