package dev.sluice.store;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import java.util.concurrent.CompletionStage;

/**
 * A view of a store that passes every call on except {@link #close}, which leaves the store open: for a stack built
 * over a store its owner closes ({@link CounterStores.Builder#leaveStoreOpen}). Thread-safe as the store is.
 */
final class LeftOpenStore implements CounterStore {

    private final CounterStore store;

    LeftOpenStore(CounterStore store) {
        this.store = store;
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        return store.apply(key, policy, cost, maxDelayNanos);
    }

    @Override
    public CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return store.applyAsync(key, policy, cost, maxDelayNanos);
    }

    @Override
    public CompletionStage<Counted> countAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return store.countAsync(key, policy, cost, maxDelayNanos);
    }

    @Override
    public CompletionStage<Counted> estimateAsync(String key, Policy policy, long estimate, long maxDelayNanos) {
        return store.estimateAsync(key, policy, estimate, maxDelayNanos);
    }

    @Override
    public CompletionStage<Decision> settleAsync(String key, Policy policy, long estimate, long actual,
                                                 String reservation) {
        return store.settleAsync(key, policy, estimate, actual, reservation);
    }

    @Override
    public CompletionStage<Counted> acquireAsync(String key, ConcurrencyLimit limit) {
        return store.acquireAsync(key, limit);
    }

    @Override
    public CompletionStage<Decision> releaseAsync(String key, ConcurrencyLimit limit, String permit) {
        return store.releaseAsync(key, limit, permit);
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        return store.peek(key, policy, cost);
    }

    @Override
    public CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        return store.peekAsync(key, policy, cost);
    }

    @Override
    public Decision record(String key, Policy policy, long cost, long ageNanos) {
        return store.record(key, policy, cost, ageNanos);
    }

    @Override
    public CompletionStage<Decision> recordAsync(String key, Policy policy, long cost, long ageNanos) {
        return store.recordAsync(key, policy, cost, ageNanos);
    }

    @Override
    public Decision reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        return store.reserve(key, policy, cost, maxWaitNanos);
    }

    @Override
    public CompletionStage<Decision> reserveAsync(String key, Policy policy, long cost, long maxWaitNanos) {
        return store.reserveAsync(key, policy, cost, maxWaitNanos);
    }

    @Override
    public void reset(String key) {
        store.reset(key);
    }

    @Override
    public SharedEntries sharedEntries(String name) {
        return store.sharedEntries(name);
    }

    @Override
    public StoreHealth health() {
        return store.health();
    }

    /** The overrides of the store it wraps. */
    @Override
    public LimitOverrides overrides() {
        return store.overrides();
    }

    /** Leaves the store open. */
    @Override
    public void close() {
    }
}
