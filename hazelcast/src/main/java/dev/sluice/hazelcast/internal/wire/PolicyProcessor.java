package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import java.io.IOException;
import java.util.Map;

/**
 * What the two deciding processors share: the policy, cost and maximum delay they carry over the wire, and the time
 * they read on the member that runs them.
 *
 * <p>Time is read here, on the key's owner, never on the caller: Hazelcast's cluster time by default (the members
 * agree on it to within their clock-sync error), or the {@link TimeSource} found in the member's user context under
 * {@link MemberClock#TIME_SOURCE_KEY}. Hazelcast injects the member's instance through
 * {@link HazelcastInstanceAware} before {@code process} runs.
 */
public abstract class PolicyProcessor<R>
        implements EntryProcessor<String, CounterState, R>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private Policy policy;
    private long cost;
    private long maxDelayNanos;
    private transient HazelcastInstance member;

    PolicyProcessor() {
    }

    public PolicyProcessor(Policy policy, long cost, long maxDelayNanos) {
        this.policy = policy;
        this.cost = cost;
        this.maxDelayNanos = maxDelayNanos;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    /** Runs the policy on the entry's state at the member's current time. */
    Transition decide(Map.Entry<String, CounterState> entry) {
        CounterState current = entry.getValue();
        return policy.apply(current == null ? null : current.state(), MemberClock.nanosOn(member), cost, maxDelayNanos);
    }

    Algorithm algorithm() {
        return policy.algorithm();
    }

    Policy policy() {
        return policy;
    }

    long cost() {
        return cost;
    }

    long maxDelayNanos() {
        return maxDelayNanos;
    }

    /** The member's current time: its {@link TimeSource} if given one, else Hazelcast's cluster time. */
    long memberNanos() {
        return MemberClock.nanosOn(member);
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        WireFormat.writePolicy(out, policy);
        out.writeLong(cost);
        out.writeLong(maxDelayNanos);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "decision processor");
        policy = WireFormat.readPolicy(in);
        cost = in.readLong();
        maxDelayNanos = in.readLong();
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }
}
