package dev.sluice.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.LocalCounterStore;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Overrides set on a {@link RateLimiter}, applied by its decisions, on a manual clock and the local store. */
class RateLimiterOverrideTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 1_000, Runnable::run);
    private final RateLimiter limiter = RateLimiter.builder().id("api").store(store).timeSource(time)
            .policy(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofMinutes(1))).build();

    @AfterEach
    void close() {
        store.close();
    }

    private int admitted(String key, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += limiter.tryAcquire(key).allowed() ? 1 : 0;
        }
        return admitted;
    }

    private static LimitOverride.Builder forKey(String key) {
        return LimitOverride.forKey("api", key).lasting(Duration.ofMinutes(10)).reason("test").setBy("tester");
    }

    @Test
    void tryAcquire_blockedKey_rejectsWhileInForceCountingNothing() {
        limiter.setOverride(forKey("k").blocked());

        assertThat(admitted("k", 5)).isZero();
        assertThat(limiter.tryAcquire("k").retryAfter()).isEqualTo(Duration.ofMinutes(10));
        assertThat(admitted("other", 5)).isEqualTo(3);
        limiter.removeOverride(Optional.of("k"), "tester");

        assertThat(admitted("k", 5)).as("the limiter's own limit in the same window: nothing counted while blocked")
                .isEqualTo(3);
    }

    @Test
    void tryAcquire_exemptKey_admitsBeyondTheLimit() {
        limiter.setOverride(forKey("k").exempt());

        assertThat(admitted("k", 10)).isEqualTo(10);
    }

    @Test
    void tryAcquire_raisedLimit_admitsTheNewLimitThenTheOwnOneAfterExpiry() {
        assertThat(admitted("k", 2)).isEqualTo(2);
        limiter.setOverride(forKey("k").limits(Limit.of(10, Duration.ofMinutes(1))));

        assertThat(admitted("k", 20)).as("a counter of its own, from zero").isEqualTo(10);

        time.advance(Duration.ofMinutes(10));
        assertThat(admitted("k", 20)).isEqualTo(3);
    }

    @Test
    void tryAcquire_wholeLimiterOverridden_countsEveryKeyUnderTheNewLimit() {
        limiter.setOverride(LimitOverride.forRule("api").limits(Limit.of(1, Duration.ofMinutes(1)))
                .lasting(Duration.ofMinutes(10)).reason("incident").setBy("tester"));

        assertThat(admitted("a", 3)).isEqualTo(1);
        assertThat(admitted("b", 3)).isEqualTo(1);
    }

    @Test
    void removeOverride_blockedKey_restoresTheOwnLimit() {
        limiter.setOverride(forKey("k").blocked());

        assertThat(limiter.removeOverride(Optional.of("k"), "tester")).isPresent();

        assertThat(admitted("k", 5)).isEqualTo(3);
        assertThat(limiter.overrides()).isEmpty();
    }

    @Test
    void setOverride_anotherId_throwsNamingBoth() {
        assertThatThrownBy(() -> limiter.setOverride(LimitOverride.forKey("search", "k").blocked()
                .lasting(Duration.ofMinutes(1)).reason("r").setBy("s")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'api'").hasMessageContaining(
                        "'search'");
    }

    @Test
    void setOverride_limitsTheAlgorithmCannotTake_throwsNamingTheAlgorithm() {
        assertThatThrownBy(() -> limiter.setOverride(forKey("k").limits(Limit.of(5, Duration.ofMinutes(1))
                .withCapacity(10))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fixed_window");
    }

    @Test
    void tryAcquirePermit_blockedKey_rejectsHoldingNothing() {
        RateLimiter permits = RateLimiter.builder().id("jobs").store(store)
                .concurrency(ConcurrencyLimit.of(1, Duration.ofMinutes(1))).build();
        permits.setOverride(LimitOverride.forKey("jobs", "k").blocked().lasting(Duration.ofMinutes(1)).reason("r")
                .setBy("s"));

        assertThat(permits.tryAcquirePermit("k").decision().allowed()).isFalse();
        assertThat(store.permitsHeld()).isZero();
        assertThat(permits.tryAcquirePermit("other").decision().allowed()).isTrue();
    }
}
