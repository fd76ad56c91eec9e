package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Decision;
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
        store.executeAsync("k", Command.acquire(TWO));
        store.executeAsync("other", Command.acquire(TWO));
        time.advance(Duration.ofMinutes(1));

        local.cleanUp();

        assertThat(local.permitsHeld()).isZero();
    }

    @Test
    void acquire_maxKeysHoldingPermits_refusesANewKeyAsUnavailableUntilOneEnds() {
        try (LocalCounterStore bounded = new LocalCounterStore(time, 2, Runnable::run)) {
            Counted a = bounded.executeAsync("a", Command.acquire(TWO)).toCompletableFuture().join();
            bounded.executeAsync("b", Command.acquire(TWO)).toCompletableFuture().join();

            Decision refused = bounded.executeAsync("c", Command.acquire(TWO)).toCompletableFuture().join().decision();
            Counted second = bounded.executeAsync("a", Command.acquire(TWO)).toCompletableFuture().join();

            assertThat(refused.allowed()).isFalse();
            assertThat(refused.storeUnavailable()).as("never taken for a pass, nor for the key's own limit").isTrue();
            assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(1));
            assertThat(second.decision().allowed()).as("a key already holding permits takes more").isTrue();
            assertThat(bounded.permitKeys()).isEqualTo(2);

            a.giveBack();
            second.giveBack();
            assertThat(bounded.executeAsync("c",
                    Command.acquire(TWO)).toCompletableFuture().join().decision().allowed()).isTrue();
        }
    }

    @Test
    void release_idOfAnotherLocalStore_releasesNothing() {
        try (LocalCounterStore other = new LocalCounterStore(time, 100, Runnable::run)) {
            String foreign = other.executeAsync("k",
                    Command.acquire(TWO)).toCompletableFuture().join().permit().orElseThrow();
            store.executeAsync("k", Command.acquire(TWO));

            store.executeAsync("k", Command.release(TWO, foreign)).toCompletableFuture().join();

            assertThat(local.permitsHeld()).isEqualTo(1);
        }
    }

    @Test
    void release_notAnId_throws() {
        assertThatThrownBy(() -> store.execute("k", Command.release(TWO, "12")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.execute("k", Command.release(TWO, "store:x")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
