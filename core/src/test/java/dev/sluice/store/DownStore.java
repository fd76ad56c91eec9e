package dev.sluice.store;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store whose every call fails, as an unreachable cluster's does (synchronously and as a failed future), for tests
 * of failure policies and of the adapters in front of them. Counts the calls it got and whether it was closed, and
 * reports the health it was given.
 */
public final class DownStore implements CounterStore {

    /** Calls to {@link #apply}, {@link #applyAsync}, {@link #peek} and {@link #peekAsync} so far. */
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
    public StoreHealth health() {
        return health;
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        throw down();
    }

    @Override
    public CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return CompletableFuture.failedFuture(down());
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        throw down();
    }

    @Override
    public CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        return CompletableFuture.failedFuture(down());
    }

    @Override
    public void close() {
        closed.set(true);
    }

    @Override
    public CompletionStage<Counted> acquireAsync(String key, ConcurrencyLimit limit) {
        return CompletableFuture.failedFuture(down());
    }

    @Override
    public CompletionStage<Decision> releaseAsync(String key, ConcurrencyLimit limit, String permit) {
        return CompletableFuture.failedFuture(down());
    }

    private IllegalStateException down() {
        calls.incrementAndGet();
        return new IllegalStateException("cluster unreachable");
    }
}
