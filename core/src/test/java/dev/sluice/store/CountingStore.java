package dev.sluice.store;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the commands that reach the store it wraps, for tests of stores and filters in front of it. */
public final class CountingStore implements CounterStore {

    /** Commands executed so far. */
    public final AtomicInteger calls = new AtomicInteger();
    /** The wrapped store, to ask without counting. */
    public final CounterStore delegate;

    public CountingStore(CounterStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        calls.incrementAndGet();
        return delegate.executeAsync(key, command);
    }

    @Override
    public StoreServices services() {
        return delegate.services();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
