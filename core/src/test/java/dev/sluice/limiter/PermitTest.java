package dev.sluice.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.time.Duration;
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
}
