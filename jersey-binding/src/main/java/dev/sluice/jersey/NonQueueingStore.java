package dev.sluice.jersey;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LimitOverrides;
import dev.sluice.store.SharedEntries;
import dev.sluice.store.StoreHealth;
import java.util.concurrent.CompletionStage;

/**
 * A store that offers queueing algorithms no delay: a JAX-RS filter cannot suspend the request to wait for a
 * leaky-bucket slot, so a request whose slot is in the future is rejected (its wait as retry-after) instead of
 * taking the slot and being held; a reservation of a slot is likewise offered only the slot now. Every other
 * operation goes to the underlying store as it is. The underlying store is closed by whoever opened it.
 */
final class NonQueueingStore implements CounterStore {

    private final CounterStore delegate;

    NonQueueingStore(CounterStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        return delegate.apply(key, policy, cost, 0);
    }

    @Override
    public CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return delegate.applyAsync(key, policy, cost, 0);
    }

    /** Counts as {@link #applyAsync} does, keeping how the underlying store takes the request back. */
    @Override
    public CompletionStage<Counted> countAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return delegate.countAsync(key, policy, cost, 0);
    }

    /** Reserves as {@link #countAsync} counts, keeping how the underlying store settles the reservation. */
    @Override
    public CompletionStage<Counted> estimateAsync(String key, Policy policy, long estimate, long maxDelayNanos) {
        return delegate.estimateAsync(key, policy, estimate, 0);
    }

    @Override
    public CompletionStage<Decision> settleAsync(String key, Policy policy, long estimate, long actual,
                                                 String reservation) {
        return delegate.settleAsync(key, policy, estimate, actual, reservation);
    }

    @Override
    public CompletionStage<Counted> acquireAsync(String key, ConcurrencyLimit limit) {
        return delegate.acquireAsync(key, limit);
    }

    @Override
    public CompletionStage<Decision> releaseAsync(String key, ConcurrencyLimit limit, String permit) {
        return delegate.releaseAsync(key, limit, permit);
    }

    @Override
    public Decision record(String key, Policy policy, long cost, long ageNanos) {
        return delegate.record(key, policy, cost, ageNanos);
    }

    @Override
    public CompletionStage<Decision> recordAsync(String key, Policy policy, long cost, long ageNanos) {
        return delegate.recordAsync(key, policy, cost, ageNanos);
    }

    /** Reserves only a slot that is free now: its caller cannot be held until a later one. */
    @Override
    public Decision reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        return delegate.reserve(key, policy, cost, 0);
    }

    @Override
    public CompletionStage<Decision> reserveAsync(String key, Policy policy, long cost, long maxWaitNanos) {
        return delegate.reserveAsync(key, policy, cost, 0);
    }

    @Override
    public void reset(String key) {
        delegate.reset(key);
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        return delegate.peek(key, policy, cost);
    }

    @Override
    public CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        return delegate.peekAsync(key, policy, cost);
    }

    /** The store it wraps. */
    CounterStore delegate() {
        return delegate;
    }

    /** The shared entries of the store it wraps. */
    @Override
    public SharedEntries sharedEntries(String name) {
        return delegate.sharedEntries(name);
    }

    /** The health of the store it wraps. */
    @Override
    public StoreHealth health() {
        return delegate.health();
    }

    /** The overrides of the store it wraps. */
    @Override
    public LimitOverrides overrides() {
        return delegate.overrides();
    }

    @Override
    public void close() {
    }
}
