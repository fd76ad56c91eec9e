package dev.sluice.store;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the decisions and peeks that reach the store it wraps, for tests of stores and filters in front of it. */
public final class CountingStore implements CounterStore {

    /** Calls to {@link #apply} and {@link #peek} so far. */
    public final AtomicInteger calls = new AtomicInteger();
    /** The wrapped store, to ask without counting. */
    public final CounterStore delegate;

    public CountingStore(CounterStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        calls.incrementAndGet();
        return delegate.apply(key, policy, cost, maxDelayNanos);
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        calls.incrementAndGet();
        return delegate.peek(key, policy, cost);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
