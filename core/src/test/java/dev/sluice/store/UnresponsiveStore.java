package dev.sluice.store;

import dev.sluice.Decision;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A remote store that never answers by itself; every call it got waits in {@code calls}, for a test to answer. Its
 * calls are sent at once, so cancelling one is refused (as the contract of {@link Command.Decide} says), but
 * recorded in {@code cancelRequests}.
 */
public final class UnresponsiveStore implements CounterStore {
    public final List<CompletableFuture<Decision>> calls = new CopyOnWriteArrayList<>();
    public final AtomicInteger cancelRequests = new AtomicInteger();

    /** A command answering a decision waits in {@code calls}; a count's answer is made from its decision. */
    @Override
    @SuppressWarnings("unchecked") // a decision's command answers a Decision
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        if (command instanceof Command.Admission<R> admission && !(command instanceof Command.Decide)) {
            return call().thenApply(admission::kept);
        }
        return (CompletionStage<R>) call();
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
