package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Decision;
import dev.sluice.ManualTimeSource;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** The permit contract for a {@link FailurePolicyStore} over a local store that never fails, and its failure rules. */
class FailurePolicyPermitStoreTest extends PermitStoreContract {

    private LocalCounterStore remote;

    @Override
    protected CounterStore newStore(ManualTimeSource time) {
        remote = new LocalCounterStore(time, 10_000, Runnable::run);
        return FailurePolicyStore.allowing(remote, Duration.ofSeconds(30));
    }

    @Override
    protected long permitsHeld() {
        return remote.permitsHeld();
    }

    @Test
    void acquire_downStoreAllowing_grantsAPermitOfNoCounter() {
        try (FailurePolicyStore allowing = FailurePolicyStore.allowing(new DownStore(), Duration.ofSeconds(1))) {
            Decision decision = allowing.executeAsync("k",
                    Command.acquire(TWO)).toCompletableFuture().join().decision();

            assertThat(decision.allowed()).isTrue();
            assertThat(decision.storeUnavailable()).isTrue();
            assertThat(allowing.failures()).isEqualTo(1);
        }
    }

    @Test
    void acquire_downStoreRejecting_rejects() {
        try (FailurePolicyStore rejecting = FailurePolicyStore.rejecting(new DownStore(), Duration.ofSeconds(1))) {
            Decision decision = rejecting.executeAsync("k",
                    Command.acquire(TWO)).toCompletableFuture().join().decision();

            assertThat(decision.allowed()).isFalse();
            assertThat(decision.storeUnavailable()).isTrue();
        }
    }

    @Test
    void acquire_downStoreFallingBack_holdsThePermitInTheFallback() {
        LocalCounterStore fallback = new LocalCounterStore(time, 100, Runnable::run);
        try (FailurePolicyStore falling = FailurePolicyStore.fallingBackTo(new DownStore(), Duration.ofSeconds(1),
                fallback)) {
            Counted held = falling.executeAsync("k", Command.acquire(TWO)).toCompletableFuture().join();

            assertThat(held.decision().allowed()).isTrue();
            assertThat(fallback.permitsHeld()).isEqualTo(1);
            held.giveBack().toCompletableFuture().join();
            assertThat(fallback.permitsHeld()).isZero();
        }
    }

    @Test
    void release_fallbackPermitsId_releasesItInTheFallback() {
        LocalCounterStore fallback = new LocalCounterStore(time, 100, Runnable::run);
        try (FailurePolicyStore falling = FailurePolicyStore.fallingBackTo(new DownStore(), Duration.ofSeconds(1),
                fallback)) {
            Counted held = falling.executeAsync("k", Command.acquire(TWO)).toCompletableFuture().join();

            falling.executeAsync("k", Command.release(TWO, held.permit().orElseThrow())).toCompletableFuture().join();

            assertThat(held.permit().orElseThrow()).startsWith("fallback:");
            assertThat(fallback.permitsHeld()).isZero();
        }
    }

    @Test
    void acquire_downStoreAllowing_grantsNoPermitId() {
        try (FailurePolicyStore allowing = FailurePolicyStore.allowing(new DownStore(), Duration.ofSeconds(1))) {
            assertThat(allowing.executeAsync("k",
                    Command.acquire(TWO)).toCompletableFuture().join().permit()).isEmpty();
        }
    }

    /** A grant that comes after the timeout holds a permit nobody will release: it goes back as it comes. */
    @Test
    void acquire_remoteGrantAfterTheTimeout_isReleasedAsItComes() {
        LocalCounterStore local = new LocalCounterStore(time, 100, Runnable::run);
        CompletableFuture<Void> late = new CompletableFuture<>();
        CounterStore slow = new CounterStore() {
            @Override
            @SuppressWarnings("unchecked") // an acquisition answers a Counted
            public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
                if (!(command instanceof Command.Acquire acquire)) {
                    throw new UnsupportedOperationException();
                }
                CompletableFuture<Counted> sent = new CompletableFuture<>() {
                    @Override
                    public boolean cancel(boolean mayInterruptIfRunning) {
                        return false;
                    }
                };
                late.thenRun(() -> local.executeAsync(key, acquire).thenAccept(sent::complete));
                return (CompletionStage<R>) sent;
            }

            @Override
            public void close() {
            }
        };
        try (FailurePolicyStore allowing = FailurePolicyStore.allowing(slow, Duration.ofMillis(20))) {
            Counted answered = allowing.executeAsync("k", Command.acquire(TWO)).toCompletableFuture().join();
            assertThat(answered.decision().storeUnavailable()).isTrue();

            late.complete(null);

            assertThat(local.permitsHeld()).isZero();
        }
    }

    @Test
    void release_downStore_failsAndCountsTheFailure() {
        try (FailurePolicyStore allowing = FailurePolicyStore.allowing(new DownStore(), Duration.ofSeconds(1))) {
            CompletableFuture<Decision> release = allowing.executeAsync("k", Command.release(TWO,
                    "any")).toCompletableFuture();

            assertThatThrownBy(release::join).hasCauseInstanceOf(IllegalStateException.class);
            assertThat(allowing.failures()).isEqualTo(1);
        }
    }
}
