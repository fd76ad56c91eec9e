package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void releaseAsync_idOfAnotherLocalStore_releasesNothing() {
        try (LocalCounterStore other = new LocalCounterStore(time, 100, Runnable::run)) {
            String foreign = other.acquireAsync("k", TWO).toCompletableFuture().join().permit().orElseThrow();
            store.acquireAsync("k", TWO);

            store.releaseAsync("k", TWO, foreign).toCompletableFuture().join();

            assertThat(local.permitsHeld()).isEqualTo(1);
        }
    }

    @Test
    void releaseAsync_notAnId_throws() {
        assertThatThrownBy(() -> store.releaseAsync("k", TWO, "12")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.releaseAsync("k", TWO, "store:x")).isInstanceOf(IllegalArgumentException.class);
    }
}
