package dev.sluice.hazelcast;

import dev.sluice.algorithm.Policy;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** How {@link HotKeyLeases} reach a key's owner in the Hazelcast store: one processor call each. Thread-safe. */
final class LeaseCalls implements HotKeyLeases.Owner {

    private final Supplier<ProcessorCalls> calls;

    LeaseCalls(Supplier<ProcessorCalls> calls) {
        this.calls = calls;
    }

    @Override
    public CompletableFuture<LeaseResult> lease(String key, Policy policy, long cost, long wanted, long lifetimeNanos) {
        return calls.get().submit(key, new LeaseProcessor(policy, cost, wanted, lifetimeNanos));
    }

    @Override
    public CompletableFuture<?> giveBack(String key, Policy policy, long permits, long countedAtNanos) {
        return calls.get().submit(key, new ReturnProcessor(policy, permits, countedAtNanos));
    }
}
