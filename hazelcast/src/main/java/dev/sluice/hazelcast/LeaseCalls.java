package dev.sluice.hazelcast;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How {@link HotKeyLeases} reach a key's owner in the Hazelcast store: one processor call each, and the store's own
 * path for a request decided without leasing. Thread-safe.
 */
final class LeaseCalls implements HotKeyLeases.Owner {

    /** The store's decision without leasing: {@code apply} of the request on its owner, batched when batching is on. */
    @FunctionalInterface
    interface Unleased {
        CompletableFuture<Decision> decide(String key, Policy policy, long cost);
    }

    private final Supplier<ProcessorCalls> calls;
    private final Unleased unleased;

    LeaseCalls(Supplier<ProcessorCalls> calls, Unleased unleased) {
        this.calls = calls;
        this.unleased = unleased;
    }

    @Override
    public CompletableFuture<LeaseResult> lease(String key, Policy policy, long cost, long wanted, long lifetimeNanos) {
        return calls.get().submit(key, new LeaseProcessor(policy, cost, wanted, lifetimeNanos));
    }

    @Override
    public CompletableFuture<?> giveBack(String key, Policy policy, long permits, long countedAtNanos) {
        return calls.get().submit(key, new ReturnProcessor(policy, permits, countedAtNanos));
    }

    /** Started on a {@link SameKeyBatcher#SENDERS} thread: the caller may be a Hazelcast response thread. */
    @Override
    public CompletableFuture<Decision> decide(String key, Policy policy, long cost) {
        return CompletableFuture.supplyAsync(() -> unleased.decide(key, policy, cost), SameKeyBatcher.SENDERS)
                .thenCompose(Function.identity());
    }
}
