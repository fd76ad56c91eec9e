package dev.sluice.jersey;

import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import dev.sluice.store.StoreServices;
import java.util.concurrent.CompletionStage;

/**
 * A store that offers queueing algorithms no delay: a JAX-RS filter cannot suspend the request to wait for a
 * leaky-bucket slot, so a request whose slot is in the future is rejected (its wait as retry-after) instead of
 * taking the slot and being held; a reservation of a slot is likewise offered only the slot now. Every other
 * command goes to the underlying store as it is. The underlying store is closed by whoever opened it.
 */
final class NonQueueingStore implements CounterStore {

    private final CounterStore delegate;

    NonQueueingStore(CounterStore delegate) {
        this.delegate = delegate;
    }

    /** Executes the command without its wait ({@link Command#withoutWait()}). */
    @Override
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        return delegate.executeAsync(key, command.withoutWait());
    }

    @Override
    public <R> R execute(String key, Command<R> command) {
        return delegate.execute(key, command.withoutWait());
    }

    /** The store it wraps. */
    CounterStore delegate() {
        return delegate;
    }

    @Override
    public StoreServices services() {
        return delegate.services();
    }

    @Override
    public void close() {
    }
}
