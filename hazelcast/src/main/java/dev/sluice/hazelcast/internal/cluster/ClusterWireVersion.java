package dev.sluice.hazelcast.internal.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IExecutorService;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import dev.sluice.hazelcast.internal.wire.WireVersionQuestion;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The newest wire format version that every member of the cluster reads, so that a caller never sends a member a
 * type it cannot read (see {@link WireFormat}'s rule for rolling upgrades). Found by asking each member
 * ({@link WireVersionQuestion}, on the executor service {@value #EXECUTOR}) when the store starts, when a member joins
 * or leaves, and when a client reconnects; capped by this process's own {@link WireFormat#NEWEST_READ}.
 *
 * <p>Until the members have answered, and from the moment one joins until it has, the version is
 * {@link WireFormat#OLDEST_READ}: the one every release reads. A member that cannot answer (a release that does not
 * know the question, or a call that failed) counts as reading only that version, until the next time the members are
 * asked. A change is logged at INFO, naming the versions, never a key. Thread-safe.
 */
public final class ClusterWireVersion implements MembershipListener {

    /** The executor service the question runs on. */
    static final String EXECUTOR = "sluice-wire-version";

    private static final System.Logger LOG = System.getLogger(ClusterWireVersion.class.getName());

    private final HazelcastInstance instance;
    /** Which asking is the latest: an answer to an older one is dropped. */
    private final AtomicInteger asking = new AtomicInteger();
    private volatile int version = WireFormat.OLDEST_READ;
    private volatile @Nullable UUID listener;

    public ClusterWireVersion(HazelcastInstance instance) {
        this.instance = instance;
    }

    /** Follows the cluster's members, asking them now and at every join and departure. */
    public ClusterWireVersion following() {
        listener = instance.getCluster().addMembershipListener(this);
        ask();
        return this;
    }

    /** The newest version every member reads, as last found. */
    public int current() {
        return version;
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
    public void memberAdded(MembershipEvent event) {
        // Before its answer, and before it owns any key, the new member is taken to read the oldest version only.
        asking.incrementAndGet();
        settle(WireFormat.OLDEST_READ);
        ask();
    }

    @Override
    public void memberRemoved(MembershipEvent event) {
        ask();
    }

    /** Asks every member now; completes with the version found (kept unless a later asking began meanwhile). */
    public CompletableFuture<Integer> ask() {
        int thisAsking = asking.incrementAndGet();
        CompletableFuture<Integer> found = new CompletableFuture<>();
        try {
            Set<Member> members = instance.getCluster().getMembers();
            if (members.isEmpty()) {
                // A client between connections: it asks again when it connects.
                found.complete(found(thisAsking, WireFormat.OLDEST_READ));
                return found;
            }
            AtomicInteger unanswered = new AtomicInteger(members.size());
            AtomicInteger lowest = new AtomicInteger(WireFormat.NEWEST_READ);
            IExecutorService executor = instance.getExecutorService(EXECUTOR);
            for (Member member : members) {
                executor.submitToMember(new WireVersionQuestion(), member, new ExecutionCallback<Integer>() {
                    @Override
                    public void onResponse(Integer read) {
                        answered(read);
                    }

                    @Override
                    public void onFailure(Throwable failure) {
                        answered(WireFormat.OLDEST_READ);
                    }

                    private void answered(int read) {
                        lowest.accumulateAndGet(read, Math::min);
                        if (unanswered.decrementAndGet() == 0) {
                            found.complete(found(thisAsking, lowest.get()));
                        }
                    }
                });
            }
        } catch (RuntimeException e) {
            found.complete(found(thisAsking, WireFormat.OLDEST_READ));
        }
        return found;
    }

    private int found(int thisAsking, int lowest) {
        if (asking.get() == thisAsking) {
            settle(lowest);
        }
        return lowest;
    }

    private synchronized void settle(int found) {
        if (found != version) {
            LOG.log(System.Logger.Level.INFO,
                    "Sluice: the cluster''s members read wire format version {0} (was {1})", found, version);
            version = found;
        }
    }
}
