package dev.sluice.hazelcast.internal.permits;

import com.hazelcast.client.Client;
import com.hazelcast.client.ClientListener;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.hazelcast.internal.wire.CallAnswer;
import dev.sluice.store.Counted;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The Hazelcast store's concurrency permits: one call to the key's owner to take a permit, one to release it, in a
 * map of their own whose entries hold each key's holders (this node's UUID and a permit number), changed only by entry
 * processors. On a member it also frees the permits of nodes that are gone: a member that left at once (its
 * membership event), a client once it has been disconnected from this member for the grace given (a client that
 * reconnects in time keeps its permits). Every member's store does so; freeing is idempotent. Thread-safe. See
 * {@code docs/design/concurrency.md}.
 */
public final class PermitCalls implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(PermitCalls.class.getName());

    private final HazelcastInstance instance;
    private final String mapName;
    private final UUID node;
    private final AtomicLong numbers = new AtomicLong();
    private final LongAdder freed = new LongAdder();
    private final Executor freeing = ForkJoinPool.commonPool();
    private final @Nullable UUID membershipListener;
    private final @Nullable UUID clientListener;

    /**
     * The permits of map {@code mapName} through {@code instance}; on a member, a client's are freed once it has been
     * disconnected from this member for {@code clientGrace}.
     */
    public PermitCalls(HazelcastInstance instance, String mapName, Duration clientGrace) {
        this.instance = instance;
        this.mapName = mapName;
        this.node = instance.getLocalEndpoint().getUuid();
        if (instance.getLocalEndpoint() instanceof Member) {
            this.membershipListener = instance.getCluster().addMembershipListener(new MembershipListener() {
                @Override
                public void memberAdded(MembershipEvent event) {
                    // Nothing to free.
                }

                @Override
                public void memberRemoved(MembershipEvent event) {
                    free(event.getMember().getUuid(), "member " + event.getMember().getAddress() + " left");
                }
            });
            this.clientListener = instance.getClientService().addClientListener(new ClientListener() {
                @Override
                public void clientConnected(Client client) {
                    // Nothing to free.
                }

                @Override
                public void clientDisconnected(Client client) {
                    CompletableFuture.delayedExecutor(clientGrace.toNanos(), TimeUnit.NANOSECONDS, freeing)
                            .execute(() -> freeUnlessBack(client.getUuid(), clientGrace));
                }
            });
        } else {
            this.membershipListener = null;
            this.clientListener = null;
        }
    }

    /**
     * Takes a permit of {@code limit} for {@code key} on the key's owner, held at most the limit's maximum hold; a
     * grant's give-back releases it there (idempotent), and its id ({@code <node UUID>:<number>}) releases it through
     * {@link #releaseAsync} from any node.
     */
    public CompletionStage<Counted> acquireAsync(String key, ConcurrencyLimit limit) {
        long number = numbers.incrementAndGet();
        // Cancelling is refused, as for a call already sent: a caller that stops waiting (the failure policy's timeout)
        // still gets a late grant, and releases it. The answer is mapped on Hazelcast's future, so on its async
        // executor, not on a response thread: what follows a permit (that release, a queue's next take) calls the
        // cluster again, which Hazelcast refuses on a response thread (IllegalThreadStateException).
        return CallAnswer.of(map().submitToKey(key, new AcquirePermitProcessor(limit, node, number))
                .thenApply(answer -> {
                    Decision decision = answer.decision(limit, false);
                    if (!decision.allowed()) {
                        return Counted.kept(decision);
                    }
                    return Counted.permit(decision, () -> node + ":" + number, () -> release(key, limit, node, number));
                }));
    }

    /**
     * Releases the permit {@code permit} (an id {@link #acquireAsync} gave, on this node or another) on the key's
     * owner; nothing when it is not held.
     *
     * @throws IllegalArgumentException when {@code permit} is not {@code <node UUID>:<number>}
     */
    public CompletionStage<Decision> releaseAsync(String key, ConcurrencyLimit limit, String permit) {
        int colon = permit.indexOf(':');
        UUID holder;
        long number;
        try {
            holder = UUID.fromString(permit.substring(0, Math.max(0, colon)));
            number = Long.parseLong(permit.substring(colon + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a permit id of a Hazelcast store: " + permit, e);
        }
        return release(key, limit, holder, number);
    }

    private CompletionStage<Decision> release(String key, ConcurrencyLimit limit, UUID holder, long number) {
        return CallAnswer.of(map().submitToKey(key, new ReleasePermitProcessor(holder, number))
                .thenApply(after -> after.decision(limit, true)));
    }

    /**
     * The permits map, asked for at each call: a client asks the cluster for it, which it cannot before its first
     * connection (a store starts without one and lets the failure policy decide meanwhile).
     */
    private IMap<String, PermitHolders> map() {
        return instance.getMap(mapName);
    }

    /** Forgets the permits {@code key} holds. */
    public void reset(String key) {
        map().delete(key);
    }

    /**
     * The permits held now over every key of the cluster, holds that have ended but were not dropped yet included.
     * Reads every entry: for tests and operators, not per request.
     */
    public long held() {
        long held = 0;
        for (PermitHolders holders : map().values()) {
            held += holders.size();
        }
        return held;
    }

    /** The permits this member freed because their node was gone, since the store started. */
    public long freedFromGoneNodes() {
        return freed.sum();
    }

    /** Frees the permits of the client {@code client} unless it is connected to this member again. */
    private void freeUnlessBack(UUID client, Duration grace) {
        if (!instance.getLifecycleService().isRunning()) {
            return;
        }
        boolean back = instance.getClientService().getConnectedClients().stream()
                .anyMatch(connected -> connected.getUuid().equals(client));
        if (!back) {
            free(client, "client " + client + " disconnected for " + grace.toMillis() + " ms");
        }
    }

    private void free(UUID gone, String why) {
        freeing.execute(() -> {
            try {
                Map<String, Integer> byKey = map().executeOnEntries(new FreeNodeProcessor(gone));
                long count = byKey.values().stream().mapToLong(Integer::longValue).sum();
                freed.add(count);
                if (count > 0) {
                    LOG.log(System.Logger.Level.INFO, "Sluice: freed {0} concurrency permits ({1})", count, why);
                }
            } catch (RuntimeException e) {
                // Shutting down, or the cluster is in trouble: the permits return at their maximum hold.
                LOG.log(System.Logger.Level.WARNING, "Sluice: could not free the concurrency permits of a node"
                        + " that is gone (" + why + "); they return at their maximum hold", e);
            }
        });
    }

    /** Stops following members and clients. */
    @Override
    public void close() {
        try {
            if (membershipListener != null) {
                instance.getCluster().removeMembershipListener(membershipListener);
            }
            if (clientListener != null) {
                instance.getClientService().removeClientListener(clientListener);
            }
        } catch (RuntimeException e) {
            // The instance is shutting down: nothing is followed any more.
        }
    }
}
