package dev.sluice.store;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where counters live: a map from key to algorithm state in which each decision is one atomic step.
 *
 * <p>A store reads the time itself (the local store from its {@code TimeSource}, the Hazelcast store on the member
 * that owns the key) and runs {@link Policy#apply} on the key's state atomically: concurrent calls on one key, from
 * any thread or node, behave as if made one after another. Never read-then-write. Keys whose state is back to full
 * capacity may be forgotten; the number of keys is bounded.
 *
 * <p>Implementations are thread-safe. A key's state belongs to one policy: callers give distinct policies distinct
 * keys.
 */
public interface CounterStore extends AutoCloseable {

    /**
     * Decides whether {@code cost} permits fit the key's policy now and, if so, counts them, in one atomic step.
     *
     * @param cost permits asked for, at least 1
     * @param maxDelayNanos for queueing algorithms, the longest delay the caller accepts for its slot
     */
    Decision apply(String key, Policy policy, long cost, long maxDelayNanos);

    /**
     * Like {@link #apply}, without blocking the caller; the default completes on the calling thread.
     *
     * <p>A caller that stops waiting cancels the returned future ({@code toCompletableFuture().cancel(false)}). A store
     * that holds calls before sending them (the Hazelcast store's batches) then withdraws one it has not sent, which
     * is never counted; cancelling a call already sent, which may still count, is refused and the future completes
     * when the store answers. A store whose futures do not keep this rule lets callers that bound their calls in
     * flight ({@link FailurePolicyStore#withMaxPending}) count a sent call as ended early.
     */
    default CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        try {
            return CompletableFuture.completedFuture(apply(key, policy, cost, maxDelayNanos));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * What {@link #apply} would decide now for {@code cost} permits (0 for the bare state), without counting
     * anything.
     */
    Decision peek(String key, Policy policy, long cost);

    /** Like {@link #peek}, without blocking the caller; the default completes on the calling thread. */
    default CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        try {
            return CompletableFuture.completedFuture(peek(key, policy, cost));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * How the store is doing: what it is, the cluster members it sees, and the calls it could not decide in the last
     * minute. The default is {@link StoreHealth#LOCAL}: a store that decides on its own. Cheap enough to call for
     * every health check or metrics scrape; never throws.
     */
    default StoreHealth health() {
        return StoreHealth.LOCAL;
    }

    /** Releases what the store holds (threads, connections, an embedded cluster member). Idempotent. */
    @Override
    void close();
}
