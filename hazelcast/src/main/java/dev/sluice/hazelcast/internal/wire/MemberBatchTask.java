package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.IMap;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * The decisions on many keys one member owns, sent to that member in one message: run by its executor service, it
 * submits one {@link BatchApplyProcessor} per key on the member itself (each key's requests in arrival order) and
 * answers every decision in the order the keys and their requests were given. Each key's call is an ordinary
 * {@code submitToKey} made on the owner: it runs on the key's partition thread and completes only once its synchronous
 * backups have acknowledged, as a call from any caller does. A key that has moved to another member is sent on there.
 * Wire format version {@value WireFormat#MEMBER_BATCHES}. Design: {@code docs/design/batching.md}.
 */
public final class MemberBatchTask implements Callable<BatchResult>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    /** Bytes each request takes on the wire: policy index, cost and maximum delay. */
    private static final int REQUEST_BYTES = Integer.BYTES + 2 * Long.BYTES;
    /** The fewest bytes a key takes: an empty name and a request count. */
    private static final int LEAST_KEY_BYTES = Integer.BYTES + Integer.BYTES;
    /** The fewest bytes a policy takes: algorithm id, limit count, one limit with an empty name. */
    private static final int LEAST_POLICY_BYTES = 1 + Integer.BYTES + 3 * Long.BYTES + Integer.BYTES;

    /** One request as the owner reads it. */
    private record Asked(Policy policy, long cost, long maxDelayNanos) implements BatchRequest {
    }

    private String mapName;
    private List<String> keys;
    /** Each key's requests, in arrival order. */
    private List<List<? extends BatchRequest>> requests;
    private transient HazelcastInstance member;

    MemberBatchTask() {
    }

    /**
     * @param keys distinct keys, all owned by the member the task is sent to (as the caller last knew)
     * @param requests each key's requests, in arrival order; at most {@link WireFormat#MAX_BATCH_REQUESTS} in all
     */
    public MemberBatchTask(String mapName, List<String> keys, List<? extends List<? extends BatchRequest>> requests) {
        int total = requests.stream().mapToInt(List::size).sum();
        if (keys.isEmpty() || keys.size() != requests.size() || total > WireFormat.MAX_BATCH_REQUESTS
                || requests.stream().anyMatch(List::isEmpty)) {
            throw new IllegalArgumentException("a member batch carries 1 to " + WireFormat.MAX_BATCH_REQUESTS
                    + " requests, at least one per key; got " + keys.size() + " keys and " + total + " requests");
        }
        this.mapName = mapName;
        this.keys = List.copyOf(keys);
        this.requests = List.copyOf(requests);
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    /** Submits every key's call before waiting for any, so the partitions decide in parallel. */
    @Override
    public BatchResult call() {
        CallbackExecutor.avoidThreadPerTask();
        IMap<String, CounterState> map = member.getMap(mapName);
        int total = requests.stream().mapToInt(List::size).sum();
        BatchResult answer = new BatchResult(new Decision[total], new int[total]);
        int next = 0;
        List<CompletableFuture<BatchResult>> calls = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            calls.add(map.submitToKey(keys.get(i), new BatchApplyProcessor(requests.get(i))).toCompletableFuture());
        }
        for (CompletableFuture<BatchResult> call : calls) {
            next = answer.copyFrom(call.join(), next);
        }
        return answer;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, WireFormat.MEMBER_BATCHES);
        out.writeString(mapName);
        List<Policy> policies = new ArrayList<>(1);
        for (List<? extends BatchRequest> keyRequests : requests) {
            for (BatchRequest request : keyRequests) {
                if (!policies.contains(request.policy())) {
                    policies.add(request.policy());
                }
            }
        }
        out.writeInt(policies.size());
        for (Policy policy : policies) {
            WireFormat.writePolicy(out, policy);
        }
        out.writeInt(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            out.writeString(keys.get(i));
            out.writeInt(requests.get(i).size());
            for (BatchRequest request : requests.get(i)) {
                out.writeInt(policies.indexOf(request.policy()));
                out.writeLong(request.cost());
                out.writeLong(request.maxDelayNanos());
            }
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "member batch", WireFormat.MEMBER_BATCHES);
        mapName = in.readString();
        int policyCount = WireFormat.readCount(in, "policies", WireFormat.MAX_BATCH_REQUESTS, LEAST_POLICY_BYTES);
        List<Policy> policies = new ArrayList<>(policyCount);
        for (int i = 0; i < policyCount; i++) {
            policies.add(WireFormat.readPolicy(in));
        }
        int keyCount = WireFormat.readCount(in, "keys", WireFormat.MAX_BATCH_REQUESTS, LEAST_KEY_BYTES);
        keys = new ArrayList<>(keyCount);
        requests = new ArrayList<>(keyCount);
        int total = 0;
        for (int k = 0; k < keyCount; k++) {
            keys.add(in.readString());
            int count = WireFormat.readCount(in, "requests", WireFormat.MAX_BATCH_REQUESTS - total, REQUEST_BYTES);
            total += count;
            List<Asked> keyRequests = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int index = in.readInt();
                if (index < 0 || index >= policyCount) {
                    throw new IOException("request " + i + " of key " + k + " names policy " + index + " of "
                            + policyCount);
                }
                keyRequests.add(new Asked(policies.get(index), in.readLong(), in.readLong()));
            }
            requests.add(keyRequests);
        }
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.MEMBER_BATCH_TASK;
    }
}
