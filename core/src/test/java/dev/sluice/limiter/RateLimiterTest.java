package dev.sluice.limiter;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

    private final ManualTimeSource time = new ManualTimeSource();

    private RateLimiter limiter(Algorithm algorithm, Limit limit) {
        return RateLimiter.builder().policy(algorithm, limit).timeSource(time).build();
    }

    @Test
    void tryAcquire_overTheLimit_rejects() {
        RateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET, Limit.of(2, ofSeconds(1)));
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
        assertThat(limiter.tryAcquire("k").allowed()).isFalse();
        assertThat(limiter.tryAcquire("other").allowed()).isTrue();
    }

    @Test
    void tryReserve_settledBelowThenAbove_givesBackThenChargesTheDebtOnce() {
        RateLimiter limiter = RateLimiter.builder().policy(dev.sluice.algorithm.Policy.of(Algorithm.TOKEN_BUCKET,
                Limit.of(100, Duration.ofMinutes(1))).inUnit("tokens")).timeSource(time).build();

        try (Permit tokens = limiter.tryReserve("k", 40)) {
            assertThat(tokens.granted()).isTrue();
            assertThat(limiter.peek("k").remaining()).isEqualTo(60);
            tokens.settle(10);
            tokens.settle(90);
        }
        assertThat(limiter.peek("k").remaining()).isEqualTo(90);

        Permit debt = limiter.tryReserve("k", 50);
        debt.settle(150);
        debt.close();
        // 90 less the estimate of 50 less the excess of 100: 60 owed, paid back at 100 a minute.
        assertThat(limiter.peek("k").remaining()).isZero();
        assertThat(limiter.tryReserve("k", 1).decision().retryAfter()).isEqualTo(Duration.ofMillis(36_600));
    }

    @Test
    void tryReserve_closedWithoutASettle_keepsTheEstimate() {
        RateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, Limit.of(10, ofSeconds(1)));
        limiter.tryReserve("k", 4).close();
        assertThat(limiter.peek("k").remaining()).isEqualTo(6);
        assertThatThrownBy(() -> RateLimiter.builder().concurrency(dev.sluice.ConcurrencyLimit.of(1)).build()
                .tryAcquirePermit("k").settle(1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void tryAcquire_costBelowOne_isRefused() {
        RateLimiter limiter = limiter(Algorithm.GCRA, Limit.of(2, ofSeconds(1)));
        assertThatThrownBy(() -> limiter.tryAcquire("k", 0)).hasMessageContaining("cost must be at least 1, got 0");
    }

    @Test
    void peek_afterGrants_reportsRemainingWithoutCounting() {
        RateLimiter limiter = limiter(Algorithm.FIXED_WINDOW, Limit.of(5, ofSeconds(1)));
        limiter.tryAcquire("k", 2);
        assertThat(limiter.peek("k").remaining()).isEqualTo(3);
        assertThat(limiter.peek("k").remaining()).isEqualTo(3);
    }

    @Test
    void timeToNextPermit_exhausted_reportsTheWaitWithoutCounting() {
        RateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET, Limit.of(1, ofSeconds(2)));
        assertThat(limiter.timeToNextPermit("k", 1)).contains(Duration.ZERO);
        limiter.tryAcquire("k");
        assertThat(limiter.timeToNextPermit("k", 1)).contains(ofSeconds(2));
        assertThat(limiter.timeToNextPermit("k", 2)).isEmpty();
        time.advance(ofSeconds(2));
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
    }

    @Test
    void acquire_permitWithinMaxWait_waitsForItThenProceeds() throws InterruptedException {
        RateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET, Limit.of(1, ofSeconds(1)));
        limiter.tryAcquire("k");
        long before = time.nanos();

        assertThat(limiter.acquire("k", 1, ofSeconds(2)).allowed()).isTrue();

        assertThat(time.nanos() - before).isEqualTo(ofSeconds(1).toNanos());
    }

    @Test
    void acquire_permitBeyondMaxWait_failsAtOnceWithoutWaiting() {
        RateLimiter limiter = limiter(Algorithm.SLIDING_WINDOW_LOG, Limit.of(1, ofSeconds(10)));
        limiter.tryAcquire("k");
        long before = time.nanos();

        assertThatThrownBy(() -> limiter.acquire("k", 1, ofSeconds(3)))
                .isInstanceOf(RateLimitExceededException.class)
                .hasMessage("rate limit '1/10s' exceeded: a cost of 1 would be granted in PT10S, longer than the "
                        + "maximum wait of PT3S")
                .extracting(e -> ((RateLimitExceededException) e).decision().retryAfter())
                .isEqualTo(ofSeconds(10));
        assertThat(time.nanos()).isEqualTo(before);
    }

    @Test
    void acquire_costAboveCapacity_failsAtOnceWithTheReason() {
        RateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET, Limit.of(5, ofSeconds(1)));
        long before = time.nanos();
        assertThatThrownBy(() -> limiter.acquire("k", 6, Duration.ofDays(1)))
                .isInstanceOf(RateLimitExceededException.class)
                .hasMessage("rate limit '5/1s': a cost of 6 can never be granted, the capacity is 5");
        assertThat(time.nanos()).isEqualTo(before);
    }

    @Test
    void acquire_leakyBucket_waitsForItsSlotAndRefusesASlotBeyondMaxWait() throws InterruptedException {
        RateLimiter limiter = limiter(Algorithm.LEAKY_BUCKET, Limit.of(10, ofSeconds(1)).withCapacity(5));
        long start = time.nanos();
        limiter.tryAcquire("k");
        limiter.tryAcquire("k");
        // Slots: 0 ms, 100 ms taken; the next is at 200 ms, beyond a maximum wait of 150 ms.
        assertThatThrownBy(() -> limiter.acquire("k", 1, ofMillis(150)))
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(time.nanos()).isEqualTo(start);
        assertThat(limiter.acquire("k", 1, ofMillis(200)).delay()).isEqualTo(ofMillis(200));
        assertThat(time.nanos() - start).isEqualTo(ofMillis(200).toNanos());
    }

    @Test
    void acquire_interrupted_throwsInterruptedException() {
        RateLimiter limiter = limiter(Algorithm.TOKEN_BUCKET, Limit.of(1, ofSeconds(1)));
        limiter.tryAcquire("k");
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> limiter.acquire("k", 1, ofSeconds(5))).isInstanceOf(InterruptedException.class);
    }

    @Test
    void acquire_realClock_waitsAtLeastTheReportedTime() throws InterruptedException {
        RateLimiter limiter = RateLimiter.builder()
                .policy(Algorithm.GCRA, Limit.of(20, ofSeconds(1)).withCapacity(1))
                .build();
        limiter.tryAcquire("k");
        long before = System.nanoTime();
        limiter.acquire("k", 1, ofSeconds(5));
        assertThat(System.nanoTime() - before).isGreaterThanOrEqualTo(ofMillis(40).toNanos());
    }

    @Test
    void build_withoutPolicy_isRefused() {
        assertThatThrownBy(() -> RateLimiter.builder().build())
                .hasMessage("a policy or a concurrency limit is required");
    }
}
