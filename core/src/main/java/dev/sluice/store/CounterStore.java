package dev.sluice.store;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Where counters live: a map from key to algorithm state on which each {@link Command} is one atomic step.
 *
 * <p>A store reads the time itself (the local store from its {@code TimeSource}, the Hazelcast store on the member
 * that owns the key) and runs the command's step of the policy ({@link dev.sluice.algorithm.Policy}) on the key's
 * state atomically: concurrent commands on one key, from any thread or node, behave as if executed one after another.
 * Never read-then-write. Keys whose state is back to full capacity may be forgotten; the number of keys is bounded.
 * A key's state belongs to one policy: callers give distinct policies distinct keys.
 *
 * <p>A store executes every command ({@link Command}'s permitted records); a store that cannot do one (a store of
 * another library without permits, say) completes it exceptionally with {@link UnsupportedOperationException}. A store
 * in front of another (a failure policy, a rejection cache) wraps {@link #executeAsync}, and so passes on every
 * command, and {@link #execute} too where waiting has a cheaper path than a joined stage (a request's decision takes
 * it). Implementations are thread-safe. How to write one: {@code docs/engine.md}.
 */
public interface CounterStore extends AutoCloseable {

    /**
     * Executes {@code command} on the key, without blocking the caller: completes with its answer, or exceptionally
     * with the store's failure (or {@link IllegalArgumentException} for an id that is none of this store's).
     *
     * <p>A caller that stops waiting cancels the returned future ({@code toCompletableFuture().cancel(false)}). A store
     * that holds calls before sending them (the Hazelcast store's batches) then withdraws one it has not sent, which
     * is never counted; cancelling a call already sent, which may still count, is refused and the future completes
     * when the store answers. A store whose futures do not keep this rule lets callers that bound their calls in
     * flight ({@link FailurePolicyStore#withMaxPending}) count a sent call as ended early.
     */
    <R> CompletionStage<R> executeAsync(String key, Command<R> command);

    /**
     * Executes {@code command} on the key and waits for its answer; the store's failure is thrown as it is (an
     * unchecked exception, not wrapped).
     */
    default <R> R execute(String key, Command<R> command) {
        try {
            return executeAsync(key, command).toCompletableFuture().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /**
     * What the store keeps besides counters: overrides, shared entries and its health. The default is a store's on its
     * own ({@link StoreServices#alone()}); stores in front of another pass the other's on.
     */
    default StoreServices services() {
        return StoreServices.alone();
    }

    /** Releases what the store holds (threads, connections, an embedded cluster member). Idempotent. */
    @Override
    void close();
}
