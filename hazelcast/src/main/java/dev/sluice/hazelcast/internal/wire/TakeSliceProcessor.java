package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Lease;
import dev.sluice.internal.state.Transition;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Takes a slice of a key's permits for the node that sends it ({@link Policy#lease}), on the member that owns the
 * key, at that member's time: counts the slice, or decides the asking request alone when the key has too few permits
 * left, and stores the state with its time to live and a synchronous backup that writes it, as
 * {@link ApplyProcessor} does. The answer carries the owner's time, which a return of unused permits names. The
 * validity is shortened by the owner clock's resolution ({@link MemberClock#clockErrorOn}). Wire layout: version
 * 3, see {@link WireFormat}.
 */
public final class TakeSliceProcessor
        implements EntryProcessor<String, CounterState, SliceResult>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private Policy policy;
    private long cost;
    private long wanted;
    private long lifetimeNanos;
    private transient HazelcastInstance member;
    private transient @Nullable WriteStateProcessor<SliceResult> backup;

    TakeSliceProcessor() {
    }

    public TakeSliceProcessor(Policy policy, long cost, long wanted, long lifetimeNanos) {
        this.policy = policy;
        this.cost = cost;
        this.wanted = wanted;
        this.lifetimeNanos = lifetimeNanos;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    @Override
    public SliceResult process(Map.Entry<String, CounterState> entry) {
        CounterState current = entry.getValue();
        long now = MemberClock.nanosOn(member);
        Lease lease = policy.lease(current == null ? null : current.state(), now, cost, wanted, lifetimeNanos,
                MemberClock.clockErrorOn(member));
        Transition transition = lease.transition();
        if (transition.changed()) {
            backup = WriteStateProcessor.stored(entry, policy.algorithm(), transition);
        }
        return new SliceResult(transition.decision(), lease.permits(), lease.validForNanos(), now);
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, SliceResult> getBackupProcessor() {
        return backup;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        WireFormat.writePolicy(out, policy);
        out.writeLong(cost);
        out.writeLong(wanted);
        out.writeLong(lifetimeNanos);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "lease processor");
        policy = WireFormat.readPolicy(in);
        cost = in.readLong();
        wanted = in.readLong();
        lifetimeNanos = in.readLong();
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.TAKE_SLICE_PROCESSOR;
    }
}
