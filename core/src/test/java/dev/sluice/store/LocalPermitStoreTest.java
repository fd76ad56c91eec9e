package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ManualTimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LocalPermitStoreTest extends PermitStoreContract {

    private LocalCounterStore local;

    @Override
    protected CounterStore newStore(ManualTimeSource time) {
        local = new LocalCounterStore(time, 10_000, Runnable::run);
        return local;
    }

    @Override
    protected long permitsHeld() {
        return local.permitsHeld();
    }

    @Test
    void cleanUp_permitsPastTheirMaxHold_areDroppedWithTheirKey() {
        store.acquireAsync("k", TWO);
        store.acquireAsync("other", TWO);
        time.advance(Duration.ofMinutes(1));

        local.cleanUp();

        assertThat(local.permitsHeld()).isZero();
    }
}
