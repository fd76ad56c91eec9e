package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.core.ReadOnly;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.algorithm.Policy;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Evaluates a key's state on its owner, at the owner's time ({@link MemberClock}), without changing it. Apart from
 * {@link CounterCommand} because it is {@link ReadOnly}, which a class is or is not: Hazelcast then makes no backup
 * and takes no write path for it. Wire layout: the version, the policy ({@link WireFormat#writePolicy}), the cost
 * and a maximum delay (longs, the delay always {@link Long#MAX_VALUE}).
 */
public final class PeekProcessor implements EntryProcessor<String, CounterState, DecisionResult>,
        IdentifiedDataSerializable, HazelcastInstanceAware, ReadOnly {

    private Policy policy;
    private long cost;
    private transient HazelcastInstance member;

    PeekProcessor() {
    }

    public PeekProcessor(Policy policy, long cost) {
        this.policy = policy;
        this.cost = cost;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    @Override
    public DecisionResult process(Map.Entry<String, CounterState> entry) {
        CounterState current = entry.getValue();
        return new DecisionResult(policy.apply(current == null ? null : current.state(), MemberClock.nanosOn(member),
                cost, Long.MAX_VALUE).decision());
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, DecisionResult> getBackupProcessor() {
        return null;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        WireFormat.writePolicy(out, policy);
        out.writeLong(cost);
        out.writeLong(Long.MAX_VALUE);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "peek processor");
        policy = WireFormat.readPolicy(in);
        cost = in.readLong();
        in.readLong();
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.PEEK_PROCESSOR;
    }
}
