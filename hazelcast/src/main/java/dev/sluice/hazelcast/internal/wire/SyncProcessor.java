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
 * On a synchronised key's owner (in a {@link ShardCall}), at the owner's time: merges the hits one node admitted from
 * its view, each with {@link Policy#record} (at the hit's instant, whether or not it fits, since it was admitted: a
 * debt for the buckets), measuring how far past its limits they took the key ({@link OverAdmission}); then
 * decides the node's request of {@code cost} past its budget ({@link Policy#apply}, or {@link Policy#reserve} for a
 * reservation; 0 decides nothing). Answers the decision, the state after, and the over-admission ({@link SyncResult}).
 * A hit's instant crosses as its age when the call left the node, placed on the owner's timeline from the owner's now
 * (plus the resolution of the owner's clock): later than it was made by the call's transit, never earlier.
 *
 * <p>Wire layout: the policy, the cost and maximum delay (longs), whether it reserves (boolean), the hit
 * count (int, 0 to {@link WireFormat#MAX_BATCH_REQUESTS}), then per hit its cost and age in nanoseconds (longs).
 * Design: {@code docs/design/synchronised.md}.
 */
public final class SyncProcessor
        implements EntryProcessor<String, CounterState, SyncResult>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private Policy policy;
    private long cost;
    private long maxDelayNanos;
    private boolean reserve;
    private long[] hitCosts;
    private long[] hitAges;
    private transient HazelcastInstance member;

    SyncProcessor() {
    }

    /**
     * @param cost the permits of the node's request decided here; 0 for none
     * @param maxDelayNanos the longest the request accepts to wait for its slot
     * @param reserve whether the request takes the earliest slot within that wait ({@link Policy#reserve}) rather
     *     than what fits now ({@link Policy#apply})
     * @param hitCosts the permits of each hit admitted on the node, each at least 1
     * @param hitAges how long before the call left the node each hit was admitted, in nanoseconds
     */
    public SyncProcessor(Policy policy, long cost, long maxDelayNanos, boolean reserve, long[] hitCosts,
                         long[] hitAges) {
        if (hitCosts.length != hitAges.length || hitCosts.length > WireFormat.MAX_BATCH_REQUESTS) {
            throw new IllegalArgumentException("hits: " + hitCosts.length + " costs, " + hitAges.length
                    + " ages, at most " + WireFormat.MAX_BATCH_REQUESTS);
        }
        this.policy = policy;
        this.cost = cost;
        this.maxDelayNanos = maxDelayNanos;
        this.reserve = reserve;
        this.hitCosts = hitCosts.clone();
        this.hitAges = hitAges.clone();
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    @Override
    public SyncResult process(Map.Entry<String, CounterState> entry) {
        CounterState current = entry.getValue();
        long now = MemberClock.nanosOn(member);
        // Hazelcast's cluster time is up to its resolution behind the true time: a hit is placed that much later.
        long clockError = MemberClock.clockErrorOn(member);
        long @Nullable [][] before = current == null ? null : current.state();
        long @Nullable [][] state = before;
        boolean changed = false;
        long idleAfter = 0;
        for (int i = 0; i < hitCosts.length; i++) {
            Transition counted = policy.record(state, now, hitCosts[i], Math.max(0, hitAges[i] - clockError));
            if (counted.changed()) {
                state = counted.changedState();
                changed = true;
                idleAfter = counted.idleAfterNanos();
            }
        }
        long over = 0;
        if (changed) {
            if (!(entry instanceof OverAdmission.Kept kept)) {
                throw new IllegalStateException("a synchronised key's hits are merged in its shard");
            }
            OverAdmission.Measured measured = kept.overAdmission().measure(policy, before, state, now);
            over = measured.permits();
            kept.keep(measured.after());
        }
        Transition decided = reserve ? policy.reserve(state, now, cost, maxDelayNanos)
                : policy.apply(state, now, cost, maxDelayNanos);
        if (decided.changed()) {
            state = decided.changedState();
            changed = true;
            idleAfter = decided.idleAfterNanos();
        }
        if (changed && state != null) {
            WriteStateProcessor.stored(entry, policy.algorithm(),
                    new Transition(state, decided.decision(), true, idleAfter));
        }
        return new SyncResult(decided.decision(), state == null ? new long[0][] : state, over);
    }

    /** The permits of the hits this processor carries. */
    public long hitPermits() {
        long permits = 0;
        for (long hitCost : hitCosts) {
            permits += hitCost;
        }
        return permits;
    }

    /** The permits of the request it decides; 0 for none. */
    public long cost() {
        return cost;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        WireFormat.writePolicy(out, policy);
        out.writeLong(cost);
        out.writeLong(maxDelayNanos);
        out.writeBoolean(reserve);
        out.writeInt(hitCosts.length);
        for (int i = 0; i < hitCosts.length; i++) {
            out.writeLong(hitCosts[i]);
            out.writeLong(hitAges[i]);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "sync processor");
        policy = WireFormat.readPolicy(in);
        cost = in.readLong();
        maxDelayNanos = in.readLong();
        reserve = in.readBoolean();
        int hits = in.readInt();
        if (hits < 0 || hits > WireFormat.MAX_BATCH_REQUESTS) {
            throw new IOException("read " + hits + " hits: 0 to " + WireFormat.MAX_BATCH_REQUESTS + " fit");
        }
        hitCosts = new long[hits];
        hitAges = new long[hits];
        for (int i = 0; i < hits; i++) {
            hitCosts[i] = in.readLong();
            hitAges[i] = in.readLong();
            if (hitCosts[i] < 1) {
                throw new IOException("a hit costs at least 1, got " + hitCosts[i]);
            }
        }
        if (cost < 0) {
            throw new IOException("a request costs 0 or more, got " + cost);
        }
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.SYNC_PROCESSOR;
    }
}
