package dev.sluice.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class PermitTest {

    private final ManualTimeSource time = new ManualTimeSource();

    private RateLimiter limiter(RateLimiter.Builder builder) {
        return builder.timeSource(time).build();
    }

    @Test
    void tryAcquirePermit_belowTheLimit_grantsUntilClosed() {
        RateLimiter limiter = limiter(RateLimiter.builder().concurrency(ConcurrencyLimit.of(1)));

        try (Permit permit = limiter.tryAcquirePermit("tenant")) {
            assertThat(permit.granted()).isTrue();
            assertThat(limiter.tryAcquirePermit("tenant").granted()).isFalse();
        }

        assertThat(limiter.tryAcquirePermit("tenant").granted()).isTrue();
    }

    @Test
    void close_calledTwice_releasesOnePermit() {
        RateLimiter limiter = limiter(RateLimiter.builder().concurrency(ConcurrencyLimit.of(2)));
        Permit first = limiter.tryAcquirePermit("tenant");
        limiter.tryAcquirePermit("tenant");

        first.close();
        first.close();

        assertThat(limiter.tryAcquirePermit("tenant").granted()).isTrue();
        assertThat(limiter.tryAcquirePermit("tenant").granted()).isFalse();
    }

    @Test
    void tryAcquirePermit_concurrencyRejects_takesNothingFromThePolicy() {
        RateLimiter limiter = limiter(RateLimiter.builder().concurrency(ConcurrencyLimit.of(1))
                .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(10, Duration.ofMinutes(1)))));
        Permit held = limiter.tryAcquirePermit("tenant");

        Permit rejected = limiter.tryAcquirePermit("tenant");

        assertThat(held.granted()).isTrue();
        assertThat(rejected.granted()).isFalse();
        assertThat(limiter.peek("tenant").remaining()).isEqualTo(9);
    }

    @Test
    void tryAcquirePermit_policyRejects_holdsNoPermit() {
        RateLimiter limiter = limiter(RateLimiter.builder().concurrency(ConcurrencyLimit.of(1))
                .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(1, Duration.ofMinutes(1)))));
        limiter.tryAcquirePermit("tenant").close();

        Permit rejected = limiter.tryAcquirePermit("tenant");

        assertThat(rejected.granted()).isFalse();
        assertThat(rejected.decision().limitName()).isEqualTo("1/1m");
        time.advance(Duration.ofMinutes(1));
        assertThat(limiter.tryAcquirePermit("tenant").granted()).isTrue();
    }

    @Test
    void tryAcquirePermit_limiterWithoutConcurrency_throws() {
        RateLimiter limiter = limiter(RateLimiter.builder()
                .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(1, Duration.ofMinutes(1)))));

        assertThatThrownBy(() -> limiter.tryAcquirePermit("tenant")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void tryAcquire_limiterOfConcurrencyAlone_throws() {
        RateLimiter limiter = limiter(RateLimiter.builder().concurrency(ConcurrencyLimit.of(1)));

        assertThatThrownBy(() -> limiter.tryAcquire("tenant")).isInstanceOf(IllegalStateException.class);
    }

    /** Waits, boundedly, for {@code condition}: the bound is a time-out of the test, not a claim on speed. */
    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 30 s").isLessThan(deadline);
            Thread.sleep(2);
        }
    }

    @Test
    void acquirePermitAsync_permitsReleased_goToTheWaitersInTheOrderTheyCame() throws InterruptedException {
        RateLimiter limiter = limiter(RateLimiter.builder().concurrency(ConcurrencyLimit.of(1)));
        Permit holder = limiter.acquirePermitAsync("tenant", Duration.ZERO).toCompletableFuture().join();
        CompletableFuture<Permit> first = limiter.acquirePermitAsync("tenant", Duration.ofSeconds(5))
                .toCompletableFuture();
        CompletableFuture<Permit> second = limiter.acquirePermitAsync("tenant", Duration.ofSeconds(5))
                .toCompletableFuture();

        holder.close();
        await(first::isDone);

        assertThat(first.join().granted()).isTrue();
        assertThat(second).isNotDone();
        first.join().close();
        await(second::isDone);
        assertThat(second.join().granted()).isTrue();
        second.join().close();
    }

    @Test
    void acquirePermitAsync_waitEnds_rejectsAndGivesTheRateCountBack() throws InterruptedException {
        RateLimiter limiter = limiter(RateLimiter.builder().concurrency(ConcurrencyLimit.of(1))
                .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofMinutes(1)))));
        Permit holder = limiter.tryAcquirePermit("tenant");
        CompletableFuture<Permit> waiter = limiter.acquirePermitAsync("tenant", Duration.ofSeconds(2))
                .toCompletableFuture();
        assertThat(limiter.peek("tenant").remaining()).isEqualTo(1);

        time.advance(Duration.ofSeconds(2));
        await(waiter::isDone);

        assertThat(waiter.join().granted()).isFalse();
        assertThat(waiter.join().decision().limitName()).isEqualTo("1 concurrent");
        assertThat(limiter.peek("tenant").remaining()).isEqualTo(2);
        holder.close();
    }

    @Test
    void acquirePermitAsync_callerGivesUp_takesNothing() throws InterruptedException {
        RateLimiter limiter = limiter(RateLimiter.builder().concurrency(ConcurrencyLimit.of(1))
                .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofMinutes(1)))));
        Permit holder = limiter.tryAcquirePermit("tenant");
        CompletableFuture<Permit> waiter = limiter.acquirePermitAsync("tenant", Duration.ofSeconds(2))
                .toCompletableFuture();

        waiter.cancel(false);
        holder.close();

        await(() -> limiter.peek("tenant").remaining() == 2);
        Permit next = limiter.tryAcquirePermit("tenant");
        assertThat(next.granted()).isTrue();
        next.close();
    }

    @Test
    void acquirePermitAsync_negativeWait_isRefused() {
        RateLimiter limiter = limiter(RateLimiter.builder().concurrency(ConcurrencyLimit.of(1)));

        assertThatThrownBy(() -> limiter.acquirePermitAsync("tenant", Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
