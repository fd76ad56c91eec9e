package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LocalCounterStoreTest extends CounterStoreContract {

    @Override
    protected CounterStore newStore(ManualTimeSource time) {
        return new LocalCounterStore(time, 10_000, Runnable::run);
    }

    @Override
    protected long storedKeys(CounterStore store) {
        return ((LocalCounterStore) store).size();
    }

    @Override
    protected void awaitExpiry() {
        ((LocalCounterStore) store).cleanUp();
    }

    @Test
    void decide_floodOfDistinctKeys_staysWithinMaxKeysRefusingTheRestUntilTheyExpire() {
        LocalCounterStore bounded = new LocalCounterStore(time, 1_000, Runnable::run);
        for (int i = 0; i < 20_000; i++) {
            Decision decision = bounded.execute("flood-" + i, Command.decide(TOKEN_BUCKET, 1, 0));
            assertThat(decision.allowed()).as("key %d", i).isEqualTo(i < 1_000);
            assertThat(decision.storeUnavailable()).as("key %d refused as unavailable, not limited", i)
                    .isEqualTo(i >= 1_000);
            assertThat(bounded.size()).isLessThanOrEqualTo(1_000);
        }

        time.advance(Duration.ofSeconds(6));
        assertThat(bounded.execute("after-they-refilled", Command.decide(TOKEN_BUCKET, 1, 0)).allowed()).isTrue();
    }

    @Test
    void decide_fullStore_refusesANewKeyAndForgetsNoCounterThatStillRestricts() {
        LocalCounterStore bounded = new LocalCounterStore(time, 2, Runnable::run);
        // One permit of a token bucket is back in 6 s; a fixed window's count lasts to the end of its minute.
        Policy perMinuteWindow = Policy.of(Algorithm.FIXED_WINDOW, TEN_PER_MINUTE);
        bounded.execute("soon", Command.decide(TOKEN_BUCKET, 1, 0));
        bounded.execute("late", Command.decide(perMinuteWindow, 1, 0));
        time.advance(Duration.ofSeconds(1));

        Decision refused = bounded.execute("new", Command.decide(TOKEN_BUCKET, 1, 0));

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.storeUnavailable()).isTrue();
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(bounded.execute("soon", Command.peek(TOKEN_BUCKET, 0)).remaining()).as("still counted").isEqualTo(9);
        assertThat(bounded.execute("soon", Command.decide(TOKEN_BUCKET, 1,
                0)).remaining()).as("a held key counts on").isEqualTo(8);
        time.advance(Duration.ofSeconds(11));
        assertThat(bounded.execute("new", Command.decide(TOKEN_BUCKET, 1,
                0)).allowed()).as("once 'soon' is back to full").isTrue();
        assertThat(bounded.execute("late", Command.peek(perMinuteWindow, 0)).remaining()).isEqualTo(9);
    }

    @Test
    void decide_sweepIntervalPassed_defaultExecutorRemovesExpiredKeysInTheBackground() throws InterruptedException {
        LocalCounterStore store = new LocalCounterStore(time, 100);
        store.execute("a", Command.decide(TOKEN_BUCKET, 1, 0));
        time.advance(Duration.ofSeconds(10));
        store.execute("b", Command.decide(TOKEN_BUCKET, 1, 0));

        // The sweep runs on the common pool: wait for it, boundedly; the bound is a timeout, not an assertion on speed.
        long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (store.size() > 1 && System.nanoTime() < giveUpAt) {
            Thread.sleep(10);
        }
        assertThat(store.size()).as("keys left once the background sweep ran").isEqualTo(1);
        assertThat(store.execute("b", Command.peek(TOKEN_BUCKET, 0)).remaining()).isEqualTo(9);
    }

    @Test
    void decide_sweepIntervalPassed_removesExpiredKeysInTheBackground() {
        LocalCounterStore store = new LocalCounterStore(time, 100, Runnable::run);
        store.execute("a", Command.decide(TOKEN_BUCKET, 1, 0));
        time.advance(Duration.ofSeconds(10));
        store.execute("b", Command.decide(TOKEN_BUCKET, 1, 0));
        assertThat(store.size()).isEqualTo(1);
    }
}
