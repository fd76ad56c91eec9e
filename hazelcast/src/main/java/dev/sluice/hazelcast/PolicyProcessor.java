package dev.sluice.hazelcast;

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
 * {@link HazelcastCounterStore#TIME_SOURCE_KEY}. Hazelcast injects the member's instance through
 * {@link HazelcastInstanceAware} before {@code process} runs.
 */
abstract class PolicyProcessor
        implements EntryProcessor<String, CounterState, DecisionResult>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private static final long NANOS_PER_MILLI = 1_000_000L;

    private Policy policy;
    private long cost;
    private long maxDelayNanos;
    private transient HazelcastInstance member;

    PolicyProcessor() {
    }

    PolicyProcessor(Policy policy, long cost, long maxDelayNanos) {
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
        return policy.apply(current == null ? null : current.state(), nanosOn(member), cost, maxDelayNanos);
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
        return nanosOn(member);
    }

    /**
     * How much later than {@link #nanosOn} the true time on {@code member} may be: 1 ms for Hazelcast's cluster time,
     * which has millisecond resolution; 0 for a {@link TimeSource} of the user context.
     */
    static long clockErrorOn(HazelcastInstance member) {
        return member.getUserContext().get(HazelcastCounterStore.TIME_SOURCE_KEY) instanceof TimeSource
                ? 0 : NANOS_PER_MILLI;
    }

    /** The wire format version that defined this processor's layout; see {@link WireFormat}. */
    int wireVersion() {
        return WireFormat.OLDEST_READ;
    }

    /** The time decisions read on {@code member}; see the class comment. */
    static long nanosOn(HazelcastInstance member) {
        if (member.getUserContext().get(HazelcastCounterStore.TIME_SOURCE_KEY) instanceof TimeSource time) {
            return time.nanos();
        }
        return member.getCluster().getClusterTime() * NANOS_PER_MILLI;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, wireVersion());
        WireFormat.writePolicy(out, policy);
        out.writeLong(cost);
        out.writeLong(maxDelayNanos);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "decision processor", wireVersion());
        policy = WireFormat.readPolicy(in);
        cost = in.readLong();
        maxDelayNanos = in.readLong();
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }
}
