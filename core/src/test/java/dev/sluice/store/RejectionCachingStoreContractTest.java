package dev.sluice.store;

import dev.sluice.ManualTimeSource;

/** The store contract for a {@link RejectionCachingStore} over a local store: caching rejections changes no answer. */
class RejectionCachingStoreContractTest extends CounterStoreContract {

    private LocalCounterStore remote;

    @Override
    protected CounterStore newStore(ManualTimeSource time) {
        remote = new LocalCounterStore(time, 10_000, Runnable::run);
        return new RejectionCachingStore(remote, time, 1_000);
    }

    @Override
    protected long storedKeys(CounterStore store) {
        return remote.size();
    }

    @Override
    protected void awaitExpiry() {
        remote.cleanUp();
    }
}
