package dev.sluice.store;

import dev.sluice.ManualTimeSource;

/** The permit contract for a {@link RejectionCachingStore}, which never answers a permit from its cache. */
class RejectionCachingPermitStoreTest extends PermitStoreContract {

    private LocalCounterStore remote;

    @Override
    protected CounterStore newStore(ManualTimeSource time) {
        remote = new LocalCounterStore(time, 10_000, Runnable::run);
        return new RejectionCachingStore(remote, time, 100);
    }

    @Override
    protected long permitsHeld() {
        return remote.permitsHeld();
    }
}
