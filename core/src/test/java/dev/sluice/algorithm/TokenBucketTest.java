package dev.sluice.algorithm;

import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

    @Test
    void tokenBucket_threePerMinute_fourthFailsUntilRefill() {
        Timeline bucket = new Timeline(Algorithm.TOKEN_BUCKET, Limit.of(3, ofMinutes(1)));

        assertThat(bucket.at(ofSeconds(0)).request().allowed()).isTrue();
        assertThat(bucket.at(ofSeconds(10)).request().allowed()).isTrue();
        assertThat(bucket.at(ofSeconds(15)).request().allowed()).isTrue();
        Decision fourth = bucket.at(ofSeconds(16)).request();
        assertThat(fourth.allowed()).isFalse();
        // One token every 20 s, counted from the first refill point (t = 0): the next is whole at t = 20 s.
        assertThat(fourth.retryAfter()).isEqualTo(ofSeconds(4));

        assertThat(bucket.at(ofSeconds(20)).request().allowed()).isTrue();
        assertThat(bucket.request().allowed()).isFalse();
    }

    @Test
    void tokenBucket_refillsOneTokenPerInterval() {
        Timeline bucket = new Timeline(Algorithm.TOKEN_BUCKET, Limit.of(3, ofMinutes(1)));
        assertThat(bucket.drain()).isEqualTo(3);

        bucket.after(ofSeconds(20).minusNanos(1));
        assertThat(bucket.request().allowed()).isFalse();
        bucket.afterNanos(1);
        assertThat(bucket.request().allowed()).isTrue();
        bucket.after(ofSeconds(40));
        assertThat(bucket.peek().remaining()).isEqualTo(2);
    }

    @Test
    void tokenBucket_fractionalRates_carryTheFractionWithoutDrift() {
        // 7 per second earns a token every 142,857,142.857 ns. Asked every millisecond for 10 s, an exact bucket
        // grants its 1 initial token plus floor(9.999 s x 7) = 69 earned ones; rounding per call would drift.
        Timeline bucket = new Timeline(Algorithm.TOKEN_BUCKET, Limit.of(7, ofSeconds(1)).withCapacity(1));
        int granted = 0;
        for (int i = 0; i < 10_000; i++) {
            if (bucket.request().allowed()) {
                granted++;
            }
            bucket.after(Duration.ofMillis(1));
        }
        assertThat(granted).isEqualTo(70);
    }

    @Test
    void tokenBucket_capacityAbovePermits_allowsABurstThenTheRate() {
        Timeline bucket = new Timeline(Algorithm.TOKEN_BUCKET, Limit.of(1, ofSeconds(1)).withCapacity(5));
        assertThat(bucket.drain()).isEqualTo(5);
        assertThat(bucket.after(ofSeconds(3)).drain()).isEqualTo(3);
        assertThat(bucket.after(ofSeconds(60)).peek().remaining()).isEqualTo(5);
    }

    @Test
    void tokenBucket_resetAfter_isTheTimeToRefillCompletely() {
        Timeline bucket = new Timeline(Algorithm.TOKEN_BUCKET, Limit.of(10, ofSeconds(10)));
        Decision decision = bucket.request(4);
        assertThat(decision.remaining()).isEqualTo(6);
        assertThat(decision.resetAfter()).isEqualTo(ofSeconds(4));
    }

    @Test
    void tokenBucket_extremeLimit_doesNotOverflow() {
        Limit huge = Limit.of(Limit.MAX_PERMITS, Duration.ofDays(366));
        Timeline bucket = new Timeline(Algorithm.TOKEN_BUCKET, huge);
        assertThat(bucket.request(Limit.MAX_PERMITS).allowed()).isTrue();
        Decision rejected = bucket.after(ofSeconds(1)).request(Limit.MAX_PERMITS);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.remaining()).isPositive();
        assertThat(rejected.retryAfter()).isLessThanOrEqualTo(Duration.ofDays(366)).isPositive();
        assertThat(bucket.after(Duration.ofDays(366)).request(Limit.MAX_PERMITS).allowed()).isTrue();
    }

    @Test
    void tokenBucket_allThreeTaken_nextPermitIn20sFullIn60s() {
        Timeline bucket = new Timeline(Algorithm.TOKEN_BUCKET, Limit.of(3, ofMinutes(1)));
        bucket.request();
        bucket.request();
        Decision third = bucket.request();
        assertThat(third.remaining()).isZero();
        assertThat(third.nextPermit()).isEqualTo(ofSeconds(20));
        assertThat(third.resetAfter()).isEqualTo(ofSeconds(60));

        Decision rejected = bucket.at(ofSeconds(5)).request();
        assertThat(rejected.retryAfter()).isEqualTo(ofSeconds(15));
        assertThat(rejected.nextPermit()).isEqualTo(ofSeconds(15));
        assertThat(rejected.resetAfter()).isEqualTo(ofSeconds(55));
    }

    @Test
    void tokenBucket_costOfTwoRejected_nextPermitIsTheNextTokenNotTheRetry() {
        Timeline bucket = new Timeline(Algorithm.TOKEN_BUCKET, Limit.of(3, ofMinutes(1)));
        bucket.request(3);
        Decision rejected = bucket.at(ofSeconds(10)).request(2);
        assertThat(rejected.retryAfter()).isEqualTo(ofSeconds(30));
        assertThat(rejected.nextPermit()).isEqualTo(ofSeconds(10));
    }

    @Test
    void tokenBucket_full_hasNoNextPermitToWaitFor() {
        Timeline bucket = new Timeline(Algorithm.TOKEN_BUCKET, Limit.of(3, ofMinutes(1)));
        assertThat(bucket.peek().nextPermitNanos()).isZero();
        bucket.request();
        assertThat(bucket.after(ofSeconds(20)).peek().nextPermitNanos()).isZero();
    }

}
