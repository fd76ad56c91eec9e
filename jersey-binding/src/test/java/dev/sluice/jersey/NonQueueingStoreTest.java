package dev.sluice.jersey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class NonQueueingStoreTest {

    private static final Policy LEAKY = Policy.of(Algorithm.LEAKY_BUCKET, Limit.of(2, Duration.ofSeconds(1)));

    private static final Policy FIXED = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(2, Duration.ofSeconds(1)));

    private static final Policy LOG = Policy.of(Algorithm.SLIDING_WINDOW_LOG, Limit.of(2, Duration.ofSeconds(1)));

    private final LocalCounterStore local = new LocalCounterStore(new ManualTimeSource(), 100, Runnable::run);
    private final NonQueueingStore store = new NonQueueingStore(local);

    @Test
    void countAsync_slotInTheFuture_isRejectedWithoutQueueing() {
        assertThat(store.countAsync("k", LEAKY, 1, Long.MAX_VALUE).toCompletableFuture().join().decision().allowed())
                .isTrue();

        Counted second = store.countAsync("k", LEAKY, 1, Long.MAX_VALUE).toCompletableFuture().join();

        assertThat(second.decision().allowed()).isFalse();
        assertThat(second.decision().retryAfter()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void countAsync_grantTakenBack_leavesTheKeyAsBefore() {
        Counted counted = store.countAsync("k", LEAKY, 1, 0).toCompletableFuture().join();

        assertThat(counted.giveBack().toCompletableFuture().join().remaining()).isEqualTo(2);
        assertThat(local.peek("k", LEAKY, 0).remaining()).isEqualTo(2);
    }

    @Test
    void record_countsThroughTheUnderlyingStore() {
        Decision after = store.record("k", FIXED, 1, 0);

        assertThat(after).isEqualTo(local.peek("k", FIXED, 1));
        assertThat(local.peek("k", FIXED, 0).remaining()).isEqualTo(1);
    }

    @Test
    void reserve_slotInTheFuture_isRejectedWithoutQueueing() {
        assertThat(store.reserve("k", LOG, 2, Long.MAX_VALUE).allowed()).isTrue();

        Decision next = store.reserveAsync("k", LOG, 1, Long.MAX_VALUE).toCompletableFuture().join();

        assertThat(next.allowed()).isFalse();
        assertThat(next.delayNanos()).isZero();
        assertThat(local.peek("k", LOG, 0).remaining()).isZero();
    }

    @Test
    void reset_forgetsTheKeyInTheUnderlyingStore() {
        store.record("k", FIXED, 2, 0);

        store.reset("k");

        assertThat(local.peek("k", FIXED, 0).remaining()).isEqualTo(2);
    }

    /**
     * A method of the store interface it does not declare would run the interface's default, which throws or blocks,
     * instead of the underlying store's.
     */
    @Test
    void everyStoreMethod_isDeclared() {
        List<String> missing = Arrays.stream(CounterStore.class.getMethods())
                .filter(method -> !Modifier.isStatic(method.getModifiers()))
                .filter(method -> !declares(method))
                .map(Method::getName)
                .toList();

        assertThat(missing).isEmpty();
    }

    private static boolean declares(Method method) {
        try {
            NonQueueingStore.class.getDeclaredMethod(method.getName(), method.getParameterTypes());
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
