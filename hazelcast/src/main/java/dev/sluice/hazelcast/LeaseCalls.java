package dev.sluice.hazelcast;

import com.hazelcast.map.IMap;
import dev.sluice.algorithm.Policy;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** How {@link HotKeyLeases} reach a key's owner in the Hazelcast store: one processor call each. Thread-safe. */
final class LeaseCalls implements HotKeyLeases.Owner {

    private final Supplier<IMap<String, CounterState>> map;

    LeaseCalls(Supplier<IMap<String, CounterState>> map) {
        this.map = map;
    }

    @Override
    public CompletableFuture<LeaseResult> lease(String key, Policy policy, long cost, long wanted, long lifetimeNanos) {
        return HazelcastCounterStore.onAnsweringThread(
                map.get().submitToKey(key, new LeaseProcessor(policy, cost, wanted, lifetimeNanos)));
    }

    @Override
    public CompletableFuture<?> giveBack(String key, Policy policy, long permits, long countedAtNanos) {
        return map.get().submitToKey(key, new ReturnProcessor(policy, permits, countedAtNanos)).toCompletableFuture();
    }
}
