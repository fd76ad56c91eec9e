package dev.sluice.jersey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.LocalCounterStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class NonQueueingStoreTest {

    private static final Policy LEAKY = Policy.of(Algorithm.LEAKY_BUCKET, Limit.of(2, Duration.ofSeconds(1)));

    private static final Policy FIXED = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(2, Duration.ofSeconds(1)));

    private static final Policy LOG = Policy.of(Algorithm.SLIDING_WINDOW_LOG, Limit.of(2, Duration.ofSeconds(1)));

    private final LocalCounterStore local = new LocalCounterStore(new ManualTimeSource(), 100, Runnable::run);
    private final NonQueueingStore store = new NonQueueingStore(local);

    @Test
    void count_slotInTheFuture_isRejectedWithoutQueueing() {
        assertThat(store.executeAsync("k", Command.count(LEAKY, 1,
                Long.MAX_VALUE)).toCompletableFuture().join().decision().allowed())
                .isTrue();

        Counted second = store.executeAsync("k", Command.count(LEAKY, 1, Long.MAX_VALUE)).toCompletableFuture().join();

        assertThat(second.decision().allowed()).isFalse();
        assertThat(second.decision().retryAfter()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void count_grantTakenBack_leavesTheKeyAsBefore() {
        Counted counted = store.executeAsync("k", Command.count(LEAKY, 1, 0)).toCompletableFuture().join();

        assertThat(counted.giveBack().toCompletableFuture().join().remaining()).isEqualTo(2);
        assertThat(local.execute("k", Command.peek(LEAKY, 0)).remaining()).isEqualTo(2);
    }

    @Test
    void record_countsThroughTheUnderlyingStore() {
        Decision after = store.execute("k", Command.record(FIXED, 1, 0));

        assertThat(after).isEqualTo(local.execute("k", Command.peek(FIXED, 1)));
        assertThat(local.execute("k", Command.peek(FIXED, 0)).remaining()).isEqualTo(1);
    }

    @Test
    void reserve_slotInTheFuture_isRejectedWithoutQueueing() {
        assertThat(store.execute("k", Command.reserve(LOG, 2, Long.MAX_VALUE)).allowed()).isTrue();

        Decision next = store.executeAsync("k", Command.reserve(LOG, 1, Long.MAX_VALUE)).toCompletableFuture().join();

        assertThat(next.allowed()).isFalse();
        assertThat(next.delayNanos()).isZero();
        assertThat(local.execute("k", Command.peek(LOG, 0)).remaining()).isZero();
    }

    @Test
    void reset_forgetsTheKeyInTheUnderlyingStore() {
        store.execute("k", Command.record(FIXED, 2, 0));

        store.execute("k", Command.reset());

        assertThat(local.execute("k", Command.peek(FIXED, 0)).remaining()).isEqualTo(2);
    }
}
