package dev.sluice.store;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A remote store that never answers by itself; every call it got waits in {@code calls}, for a test to answer. Its
 * calls are sent at once, so cancelling one is refused (as the contract of {@link CounterStore#applyAsync} says), but
 * recorded in {@code cancelRequests}.
 */
public final class UnresponsiveStore implements CounterStore {
    public final List<CompletableFuture<Decision>> calls = new CopyOnWriteArrayList<>();
    public final AtomicInteger cancelRequests = new AtomicInteger();

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        return applyAsync(key, policy, cost, maxDelayNanos).toCompletableFuture().join();
    }

    @Override
    public CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return call();
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        return peekAsync(key, policy, cost).toCompletableFuture().join();
    }

    @Override
    public CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        return call();
    }

    @Override
    public CompletionStage<Decision> recordAsync(String key, Policy policy, long cost, long ageNanos) {
        return call();
    }

    @Override
    public CompletionStage<Decision> reserveAsync(String key, Policy policy, long cost, long maxWaitNanos) {
        return call();
    }

    private CompletableFuture<Decision> call() {
        CompletableFuture<Decision> call = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                cancelRequests.incrementAndGet();
                return false;
            }
        };
        calls.add(call);
        return call;
    }

    @Override
    public void close() {
    }
}
