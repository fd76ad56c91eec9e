package dev.sluice.store;

import java.util.concurrent.CompletionStage;

/**
 * A view of a store that passes every command on, and its services, but leaves the store open on {@link #close}: for
 * a stack built over a store its owner closes ({@link CounterStores.Builder#leaveStoreOpen}). Thread-safe as the store
 * is.
 */
final class LeftOpenStore implements CounterStore {

    private final CounterStore store;

    LeftOpenStore(CounterStore store) {
        this.store = store;
    }

    @Override
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        return store.executeAsync(key, command);
    }

    @Override
    public <R> R execute(String key, Command<R> command) {
        return store.execute(key, command);
    }

    @Override
    public StoreServices services() {
        return store.services();
    }

    /** Leaves the store open. */
    @Override
    public void close() {
    }
}
