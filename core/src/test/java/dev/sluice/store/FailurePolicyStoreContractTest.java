package dev.sluice.store;

import dev.sluice.ManualTimeSource;
import java.time.Duration;

/** The store contract for a {@link FailurePolicyStore} over a local store that never fails: it changes no answer. */
class FailurePolicyStoreContractTest extends CounterStoreContract {

    private LocalCounterStore remote;

    @Override
    protected CounterStore newStore(ManualTimeSource time) {
        remote = new LocalCounterStore(time, 10_000, Runnable::run);
        return FailurePolicyStore.allowing(remote, Duration.ofSeconds(30));
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
