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
 * On a synchronised key's owner, at the owner's time: counts the hits a node admitted from its view
 * ({@link Policy#record}, whether or not they fit, each at the owner-clock instant the node decided it), then decides
 * a request of {@code cost} ({@link Policy#apply}; cost 0 decides nothing), stores the state with its time to live and
 * a synchronous backup as {@link ApplyProcessor} does, and answers the decision with the state and the owner's time
 * ({@link SyncResult}), which the node adopts as its view. Wire layout (version 6, {@link WireFormat#SYNCS}): the
 * policy, the cost (long), whether hits follow (boolean), then their count (int, 1 to
 * {@link WireFormat#MAX_BATCH_REQUESTS}), then per hit its cost
 * and instant (longs). Design: {@code docs/design/synchronised.md}.
 */
public final class SyncProcessor
        implements EntryProcessor<String, CounterState, SyncResult>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    private Policy policy;
    private long cost;
    private long[] hitCosts;
    private long[] hitInstants;
    private transient HazelcastInstance member;
    private transient @Nullable WriteStateProcessor<SyncResult> backup;

    SyncProcessor() {
    }

    /**
     * @param hitCosts the permits of each hit admitted on the node, each at least 1
     * @param hitInstants when each hit was admitted, on the owner's clock as the node estimated it
     */
    public SyncProcessor(Policy policy, long cost, long[] hitCosts, long[] hitInstants) {
        if (hitCosts.length != hitInstants.length || hitCosts.length > WireFormat.MAX_BATCH_REQUESTS) {
            throw new IllegalArgumentException("hits: " + hitCosts.length + " costs, " + hitInstants.length
                    + " instants, at most " + WireFormat.MAX_BATCH_REQUESTS);
        }
        this.policy = policy;
        this.cost = cost;
        this.hitCosts = hitCosts.clone();
        this.hitInstants = hitInstants.clone();
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    @Override
    public SyncResult process(Map.Entry<String, CounterState> entry) {
        CounterState current = entry.getValue();
        long now = MemberClock.nanosOn(member);
        long @Nullable [][] state = current == null ? null : current.state();
        boolean changed = false;
        long idleAfter = 0;
        for (int i = 0; i < hitCosts.length; i++) {
            Transition counted = policy.record(state, now, hitCosts[i], Math.max(0, now - hitInstants[i]));
            if (counted.changed()) {
                state = counted.changedState();
                changed = true;
                idleAfter = Math.max(idleAfter, counted.idleAfterNanos());
            }
        }
        Transition decided = policy.apply(state, now, cost, 0);
        if (decided.changed()) {
            state = decided.changedState();
            changed = true;
            idleAfter = Math.max(idleAfter, decided.idleAfterNanos());
        }
        if (changed) {
            backup = WriteStateProcessor.stored(entry, policy.algorithm(),
                    new Transition(state, decided.decision(), true, idleAfter));
        }
        return new SyncResult(decided.decision(), state == null ? new long[0][] : state, now);
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, SyncResult> getBackupProcessor() {
        return backup;
    }

    /** The hits this processor carries. */
    public int hits() {
        return hitCosts.length;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out, WireFormat.SYNCS);
        WireFormat.writePolicy(out, policy);
        out.writeLong(cost);
        out.writeBoolean(hitCosts.length > 0);
        if (hitCosts.length > 0) {
            out.writeInt(hitCosts.length);
        }
        for (int i = 0; i < hitCosts.length; i++) {
            out.writeLong(hitCosts[i]);
            out.writeLong(hitInstants[i]);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "sync processor", WireFormat.SYNCS);
        policy = WireFormat.readPolicy(in);
        cost = in.readLong();
        boolean anyHits = in.readBoolean();
        int hits = anyHits ? WireFormat.readCount(in, "hits", WireFormat.MAX_BATCH_REQUESTS, 2 * Long.BYTES) : 0;
        hitCosts = new long[hits];
        hitInstants = new long[hits];
        for (int i = 0; i < hits; i++) {
            hitCosts[i] = in.readLong();
            hitInstants[i] = in.readLong();
            if (hitCosts[i] < 1) {
                throw new IOException("a hit costs at least 1, got " + hitCosts[i]);
            }
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
