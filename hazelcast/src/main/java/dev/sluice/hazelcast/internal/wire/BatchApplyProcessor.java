package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.Decision;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Several decisions on one key, run on the member that owns it in one invocation: each request in arrival order, each
 * on the state the one before left, all at the one instant the member reads, exactly as if they had come one at a
 * time at that instant. The entry is written once, with the state and time to live of the last request that changed
 * it, and its backup gets that one write ({@link WriteStateProcessor}), so a batch costs the partition one state write
 * and one backup write however many requests it carries.
 *
 * <p>Requests usually share their policy (the same rule on the same key), so each distinct policy travels once and
 * requests name it by index.
 */
public final class BatchApplyProcessor
        implements EntryProcessor<String, CounterState, BatchResult>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    /** Bytes each request takes on the wire: policy index, cost and maximum delay. */
    private static final int REQUEST_BYTES = Integer.BYTES + 2 * Long.BYTES;
    /** The fewest bytes a policy takes: algorithm id, limit count, one limit with an empty name. */
    private static final int LEAST_POLICY_BYTES = 1 + Integer.BYTES + 3 * Long.BYTES + Integer.BYTES;

    private List<Policy> policies;
    private int[] policyIndexes;
    private long[] costs;
    private long[] maxDelaysNanos;
    private transient HazelcastInstance member;
    private transient @Nullable WriteStateProcessor<BatchResult> backup;

    BatchApplyProcessor() {
    }

    /** A batch of {@code requests}, in this order; at most {@link WireFormat#MAX_BATCH_REQUESTS}. */
    public BatchApplyProcessor(List<? extends BatchRequest> requests) {
        if (requests.isEmpty() || requests.size() > WireFormat.MAX_BATCH_REQUESTS) {
            throw new IllegalArgumentException("a batch carries 1 to " + WireFormat.MAX_BATCH_REQUESTS
                    + " requests, got " + requests.size());
        }
        policies = new ArrayList<>(1);
        policyIndexes = new int[requests.size()];
        costs = new long[requests.size()];
        maxDelaysNanos = new long[requests.size()];
        for (int i = 0; i < requests.size(); i++) {
            BatchRequest request = requests.get(i);
            int index = policies.indexOf(request.policy());
            if (index < 0) {
                index = policies.size();
                policies.add(request.policy());
            }
            policyIndexes[i] = index;
            costs[i] = request.cost();
            maxDelaysNanos[i] = request.maxDelayNanos();
        }
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    @Override
    public BatchResult process(Map.Entry<String, CounterState> entry) {
        CounterState stored = entry.getValue();
        long @Nullable [][] state = stored == null ? null : stored.state();
        long now = MemberClock.nanosOn(member);
        Decision[] decisions = new Decision[costs.length];
        int[] limitIndexes = new int[costs.length];
        Algorithm lastWriter = null;
        long idleAfterNanos = 0;
        for (int i = 0; i < costs.length; i++) {
            Policy policy = policies.get(policyIndexes[i]);
            Transition transition = policy.apply(state, now, costs[i], maxDelaysNanos[i]);
            decisions[i] = transition.decision();
            limitIndexes[i] = BatchResult.limitIndex(policy, transition.decision());
            if (transition.changed()) {
                state = transition.changedState();
                lastWriter = policy.algorithm();
                idleAfterNanos = transition.idleAfterNanos();
            }
        }
        if (lastWriter != null && state != null) {
            CounterState next = new CounterState(lastWriter, state);
            long ttlSeconds = WriteStateProcessor.ttlSeconds(idleAfterNanos);
            ((ExtendedMapEntry<String, CounterState>) entry).setValue(next, ttlSeconds, TimeUnit.SECONDS);
            backup = new WriteStateProcessor<>(next, ttlSeconds);
        }
        return new BatchResult(decisions, limitIndexes);
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, BatchResult> getBackupProcessor() {
        return backup;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        out.writeInt(policies.size());
        for (Policy policy : policies) {
            WireFormat.writePolicy(out, policy);
        }
        out.writeInt(costs.length);
        for (int i = 0; i < costs.length; i++) {
            out.writeInt(policyIndexes[i]);
            out.writeLong(costs[i]);
            out.writeLong(maxDelaysNanos[i]);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "batch processor");
        int policyCount = WireFormat.readCount(in, "policies", WireFormat.MAX_BATCH_REQUESTS, LEAST_POLICY_BYTES);
        policies = new ArrayList<>(policyCount);
        for (int i = 0; i < policyCount; i++) {
            policies.add(WireFormat.readPolicy(in));
        }
        int count = WireFormat.readCount(in, "requests", WireFormat.MAX_BATCH_REQUESTS, REQUEST_BYTES);
        policyIndexes = new int[count];
        costs = new long[count];
        maxDelaysNanos = new long[count];
        for (int i = 0; i < count; i++) {
            int index = in.readInt();
            if (index < 0 || index >= policyCount) {
                throw new IOException("request " + i + " names policy " + index + " of " + policyCount);
            }
            policyIndexes[i] = index;
            costs[i] = in.readLong();
            maxDelaysNanos[i] = in.readLong();
        }
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.BATCH_APPLY_PROCESSOR;
    }
}
