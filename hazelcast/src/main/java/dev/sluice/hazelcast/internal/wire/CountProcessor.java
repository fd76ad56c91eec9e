package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One decision, as {@link ApplyProcessor} makes it (on the key's owner, at its time, the state stored with its time to
 * live and a synchronous backup that writes it), answered with the owner's time of the count: what an
 * {@link UndoProcessor} names to take the request back should another rule reject it. The answer is a
 * {@link SliceResult} without a slice. Wire layout: version 4, as {@link ApplyProcessor}'s; see {@link WireFormat}.
 */
public final class CountProcessor
        implements EntryProcessor<String, CounterState, SliceResult>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private Policy policy;
    private long cost;
    private long maxDelayNanos;
    private transient HazelcastInstance member;
    private transient @Nullable WriteStateProcessor<SliceResult> backup;

    CountProcessor() {
    }

    public CountProcessor(Policy policy, long cost, long maxDelayNanos) {
        this.policy = policy;
        this.cost = cost;
        this.maxDelayNanos = maxDelayNanos;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    @Override
    public SliceResult process(Map.Entry<String, CounterState> entry) {
        CounterState current = entry.getValue();
        long now = MemberClock.nanosOn(member);
        Transition transition = policy.apply(current == null ? null : current.state(), now, cost, maxDelayNanos);
        if (transition.changed()) {
            backup = WriteStateProcessor.stored(entry, policy.algorithm(), transition);
        }
        return new SliceResult(transition.decision(), 0, 0, now);
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, SliceResult> getBackupProcessor() {
        return backup;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, WireFormat.UNDOS);
        WireFormat.writePolicy(out, policy);
        out.writeLong(cost);
        out.writeLong(maxDelayNanos);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "count processor", WireFormat.UNDOS);
        policy = WireFormat.readPolicy(in);
        cost = in.readLong();
        maxDelayNanos = in.readLong();
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.COUNT_PROCESSOR;
    }
}
