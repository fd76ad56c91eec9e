package dev.sluice.store;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store whose every command fails, as an unreachable cluster's does, for tests
 * of failure policies and of the adapters in front of them. Counts the calls it got and whether it was closed, and
 * reports the health it was given.
 */
public final class DownStore implements CounterStore {

    /** Commands executed so far. */
    public final AtomicInteger calls = new AtomicInteger();
    /** Whether {@link #close} was called. */
    public final AtomicBoolean closed = new AtomicBoolean();
    private final StoreHealth health;

    /** A store that reports the health of a local one. */
    public DownStore() {
        this(StoreHealth.LOCAL);
    }

    /** A store that reports {@code health}, as a remote store that knows why it fails does. */
    public DownStore(StoreHealth health) {
        this.health = health;
    }

    @Override
    public StoreServices services() {
        return StoreServices.alone().withHealth(any -> health);
    }

    @Override
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        return CompletableFuture.failedFuture(down());
    }

    @Override
    public void close() {
        closed.set(true);
    }

    private IllegalStateException down() {
        calls.incrementAndGet();
        return new IllegalStateException("cluster unreachable");
    }
}
