package dev.sluice.hazelcast.internal.cluster;

import com.hazelcast.cluster.InitialMembershipEvent;
import com.hazelcast.cluster.InitialMembershipListener;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.internal.wire.WireVersionQuestion;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Checks each member of the cluster, those there when it starts following and every one that joins later, for
 * Sluice's classes: the member is asked a {@link WireVersionQuestion} on its executor service, which every Sluice
 * release answers and a member without Sluice's jars cannot read (it reaches a member that owns no partition yet).
 * It tells its one callback when a member is found incompatible (a {@link MemberCompatibility.Verdict#INCOMPATIBLE}
 * result whose cause names the member's address and uuid), and when the last incompatible member still in the cluster
 * leaves (a {@link MemberCompatibility.Verdict#COMPATIBLE} one). A member that does not answer for another reason (it
 * left, the call failed) is left unjudged. The callback runs on a Hazelcast thread, one call at a time, and must not
 * block. Thread-safe.
 */
public final class MembershipWatch implements InitialMembershipListener {

    private static final System.Logger LOG = System.getLogger(MembershipWatch.class.getName());

    private final HazelcastInstance instance;
    private final Consumer<MemberCompatibility.Result> callback;
    /** The incompatible members in the cluster now, by uuid. Changed under this watch's lock, read without it. */
    private final Set<UUID> incompatible = ConcurrentHashMap.newKeySet();
    /** Every member found incompatible since the watch started following, by uuid; as {@link #incompatible}. */
    private final Set<UUID> seen = ConcurrentHashMap.newKeySet();
    private volatile @Nullable UUID listener;

    public MembershipWatch(HazelcastInstance instance, Consumer<MemberCompatibility.Result> callback) {
        this.instance = instance;
        this.callback = callback;
    }

    /** Follows the cluster's members: checks those there now (for a client: once connected) and each that joins. */
    public MembershipWatch following() {
        listener = instance.getCluster().addMembershipListener(this);
        return this;
    }

    /** How many distinct members were found incompatible since the watch started following. */
    public int incompatibleSeen() {
        return seen.size();
    }

    /** Whether a member found incompatible is in the cluster now. */
    public boolean anyIncompatible() {
        return !incompatible.isEmpty();
    }

    /** Stops following the members. */
    public void stop() {
        UUID registered = listener;
        if (registered != null) {
            listener = null;
            MembershipListeners.remove(instance, registered);
        }
    }

    @Override
    public void init(InitialMembershipEvent event) {
        event.getMembers().forEach(this::check);
    }

    @Override
    public void memberAdded(MembershipEvent event) {
        check(event.getMember());
    }

    @Override
    public synchronized void memberRemoved(MembershipEvent event) {
        if (incompatible.remove(event.getMember().getUuid()) && incompatible.isEmpty()) {
            callback.accept(new MemberCompatibility.Result(MemberCompatibility.Verdict.COMPATIBLE, ""));
        }
    }

    private void check(Member member) {
        if (member.localMember()) {
            return; // this process runs Sluice
        }
        try {
            instance.getExecutorService(ClusterWireVersion.EXECUTOR).submitToMember(new WireVersionQuestion(), member,
                    new ExecutionCallback<Integer>() {
                        @Override
                        public void onResponse(Integer read) {
                            // A Sluice member: ClusterWireVersion settles which format it reads.
                        }

                        @Override
                        public void onFailure(Throwable failure) {
                            answered(member, MemberCompatibility.classify(failure));
                        }
                    });
        } catch (RuntimeException e) {
            answered(member, MemberCompatibility.classify(e));
        }
    }

    private void answered(Member member, MemberCompatibility.Result result) {
        if (result.verdict() != MemberCompatibility.Verdict.INCOMPATIBLE) {
            LOG.log(System.Logger.Level.DEBUG, "Sluice: member {0} not checked ({1}); it is when it joins again",
                    member, result.cause());
            return;
        }
        synchronized (this) {
            if (!instance.getCluster().getMembers().contains(member)) {
                return; // it left before its answer came
            }
            incompatible.add(member.getUuid());
            seen.add(member.getUuid());
            // Under the lock, so that a departure right after is told after this.
            callback.accept(new MemberCompatibility.Result(MemberCompatibility.Verdict.INCOMPATIBLE, "member "
                    + member.getAddress() + ", uuid " + member.getUuid() + ": " + result.cause()));
        }
    }
}
