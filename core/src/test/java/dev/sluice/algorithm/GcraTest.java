package dev.sluice.algorithm;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import org.junit.jupiter.api.Test;

/** GCRA against redis-cell's documented CL.THROTTLE answers, and the leaky bucket read of the same timestamp. */
class GcraTest {

    /** {@code CL.THROTTLE user123 15 30 60}: max burst 15, 30 per 60 s. */
    private static final Limit REDIS_CELL_EXAMPLE = Limit.of(30, ofSeconds(60)).withCapacity(15 + 1);

    @Test
    void gcra_redisCellReadmeExample_matchesThrottleReply() {
        Decision first = new Timeline(Algorithm.GCRA, REDIS_CELL_EXAMPLE).request();

        assertThat(first.allowed()).isTrue();
        assertThat(first.limit()).isEqualTo(16);
        assertThat(first.remaining()).isEqualTo(15);
        assertThat(first.retryAfterNanos()).isZero();
        assertThat(first.resetAfter()).isEqualTo(ofSeconds(2));
    }

    @Test
    void gcra_burstExhausted_rejectsWithOneEmissionIntervalToWait() {
        Timeline gcra = new Timeline(Algorithm.GCRA, REDIS_CELL_EXAMPLE);
        assertThat(gcra.drain()).isEqualTo(16);

        Decision limited = gcra.request();
        assertThat(limited.remaining()).isZero();
        assertThat(limited.retryAfter()).isEqualTo(ofSeconds(2));
        assertThat(limited.resetAfter()).isEqualTo(ofSeconds(32));
        assertThat(gcra.after(ofSeconds(2)).request().allowed()).isTrue();
        assertThat(gcra.request().allowed()).isFalse();
    }

    @Test
    void gcra_quantity_consumesSeveralIntervals() {
        Timeline gcra = new Timeline(Algorithm.GCRA, REDIS_CELL_EXAMPLE);
        Decision decision = gcra.request(10);
        assertThat(decision.remaining()).isEqualTo(6);
        assertThat(decision.resetAfter()).isEqualTo(ofSeconds(20));
        Decision tooMuch = gcra.request(7);
        assertThat(tooMuch.allowed()).isFalse();
        assertThat(tooMuch.retryAfter()).isEqualTo(ofSeconds(2));
    }

    @Test
    void gcra_costAboveBurstPlusOne_canNeverSucceed() {
        Decision decision = new Timeline(Algorithm.GCRA, REDIS_CELL_EXAMPLE).request(17);
        assertThat(decision.allowed()).isFalse();
        assertThat(decision.canSucceed()).isFalse();
    }

    @Test
    void leakyBucket_burstOfRequests_areGrantedTheDelaysOfTheirSlots() {
        // nginx limit_req rate=10r/s burst=3 (no nodelay): one served now, three queued 100 ms apart, then 503.
        Timeline queue = new Timeline(Algorithm.LEAKY_BUCKET, Limit.of(10, ofSeconds(1)).withCapacity(4));
        for (int slot = 0; slot < 4; slot++) {
            Decision decision = queue.request();
            assertThat(decision.allowed()).isTrue();
            assertThat(decision.delay()).isEqualTo(ofMillis(100L * slot));
        }
        Decision full = queue.request();
        assertThat(full.allowed()).isFalse();
        assertThat(full.retryAfter()).isEqualTo(ofMillis(100));
    }

    @Test
    void leakyBucket_slotFurtherThanMaxDelay_isRejectedWithoutTakingIt() {
        Timeline queue = new Timeline(Algorithm.LEAKY_BUCKET, Limit.of(10, ofSeconds(1)).withCapacity(10));
        queue.request();
        queue.request();
        queue.request();
        Decision tooLate = queue.request(1, ofMillis(250).toNanos());
        assertThat(tooLate.allowed()).isFalse();
        assertThat(tooLate.retryAfter()).isEqualTo(ofMillis(50));
        assertThat(queue.request(1, ofMillis(300).toNanos()).delay()).isEqualTo(ofMillis(300));
    }

    @Test
    void leakyBucket_drainsAtTheRate() {
        Timeline queue = new Timeline(Algorithm.LEAKY_BUCKET, Limit.of(10, ofSeconds(1)).withCapacity(5));
        assertThat(queue.drain()).isEqualTo(5);
        assertThat(queue.after(ofMillis(200)).drain()).isEqualTo(2);
        assertThat(queue.after(ofSeconds(10)).peek().remaining()).isEqualTo(5);
    }

    @Test
    void gcra_nextPermit_isTheRemainderOfTheEmissionInterval() {
        // T = 2 s. Ten permits taken: busy for 20 s, room for 6 permits (12 s of 32 s). Half a second later the room
        // is 12.5 s: the seventh permit comes when it reaches 14 s, in 1.5 s.
        Timeline gcra = new Timeline(Algorithm.GCRA, REDIS_CELL_EXAMPLE);
        assertThat(gcra.request(10).nextPermit()).isEqualTo(ofSeconds(2));
        Decision later = gcra.after(ofMillis(500)).request(0);
        assertThat(later.remaining()).isEqualTo(6);
        assertThat(later.nextPermit()).isEqualTo(ofMillis(1_500));
        assertThat(later.resetAfter()).isEqualTo(ofMillis(19_500));
    }

    @Test
    void gcra_rejectedCostOfSeven_nextPermitComesBeforeTheRetry() {
        Timeline gcra = new Timeline(Algorithm.GCRA, REDIS_CELL_EXAMPLE);
        gcra.request(10);
        Decision tooMuch = gcra.after(ofMillis(500)).request(8);
        assertThat(tooMuch.retryAfter()).isEqualTo(ofMillis(3_500));
        assertThat(tooMuch.nextPermit()).isEqualTo(ofMillis(1_500));
    }

    @Test
    void leakyBucket_slotFurtherThanMaxDelay_nextPermitIsTheSlotTheCallerCanTake() {
        // The queue has 7 free slots and the next frees in 100 ms, but this caller accepts no slot further than
        // 250 ms: for it, a permit is available once its slot is that near, in 50 ms.
        Timeline queue = new Timeline(Algorithm.LEAKY_BUCKET, Limit.of(10, ofSeconds(1)).withCapacity(10));
        queue.request(3);
        Decision tooLate = queue.request(1, ofMillis(250).toNanos());
        assertThat(tooLate.remaining()).isEqualTo(7);
        assertThat(tooLate.retryAfter()).isEqualTo(ofMillis(50));
        assertThat(tooLate.nextPermit()).isEqualTo(ofMillis(50));
        assertThat(queue.request(0).nextPermit()).isEqualTo(ofMillis(100));
    }

}
