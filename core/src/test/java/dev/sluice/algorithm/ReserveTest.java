package dev.sluice.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.internal.Durations;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Algorithm#reserve}: the earliest slot at which a cost fits, counted there, so that the slots handed out never
 * hold more than the limit in any window.
 */
class ReserveTest {

    private static final long START = Timeline.START;
    private static final long MILLI = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"SLIDING_WINDOW_LOG", "STEPPED_SLIDING_WINDOW"})
    void reserve_randomRequests_slotsNeverHoldMoreThanTheLimitInAnyWindowAndAreTheEarliest(Algorithm algorithm) {
        Random random = new Random(4_040L + algorithm.id());
        for (int run = 0; run < 40; run++) {
            int permits = 1 + random.nextInt(8);
            long period = (1 + random.nextInt(20_000)) * MILLI;
            long step = algorithm == Algorithm.STEPPED_SLIDING_WINDOW ? WindowLog.stepNanos(period) : 1;
            Policy policy = Policy.of(algorithm, Limit.of(permits, Duration.ofNanos(period)));
            // Permits taken per step (per nanosecond for the log), by the step of the slot each was granted.
            TreeMap<Long, Long> takenPerStep = new TreeMap<>();
            long[][] state = null;
            long now = START + random.nextInt(1_000_000);
            for (int i = 0; i < 200; i++) {
                now += random.nextInt(4) == 0 ? (long) (random.nextDouble() * period / 3) : 0;
                long cost = 1 + random.nextInt(permits);
                long maxWait = (long) (random.nextDouble() * 2 * period);
                Decision peeked = policy.apply(state, now, cost, 0).decision();
                Transition transition = policy.reserve(state, now, cost, maxWait);
                Decision decision = transition.decision();
                long earliest = peeked.allowed() ? 0 : peeked.retryAfterNanos();
                String context = String.format("run %d, request %d of cost %d: %s", run, i, cost, decision);
                if (earliest <= maxWait) {
                    assertThat(decision.allowed()).as(context).isTrue();
                    assertThat(decision.delayNanos()).as(context).isEqualTo(earliest);
                    takenPerStep.merge(Math.floorDiv(now + earliest, step), cost, Long::sum);
                } else {
                    assertThat(decision.allowed()).as(context).isFalse();
                    assertThat(decision.retryAfterNanos()).as(context).isEqualTo(earliest);
                    assertThat(transition.changed()).as(context).isFalse();
                }
                state = transition.state();
            }
            long steps = Durations.ceilDiv(period, step);
            for (Map.Entry<Long, Long> slot : takenPerStep.entrySet()) {
                long inWindow = takenPerStep.subMap(slot.getKey() - steps, false, slot.getKey(), true).values()
                        .stream().mapToLong(Long::longValue).sum();
                assertThat(inWindow).as("run %d: permits in the window ending at step %d", run, slot.getKey())
                        .isLessThanOrEqualTo(permits);
            }
        }
    }

    @Test
    void reserve_twoLimits_waitsUntilBothFit() {
        Policy policy = Policy.of(Algorithm.SLIDING_WINDOW_LOG, Limit.of(2, Duration.ofSeconds(1)),
                Limit.of(3, Duration.ofSeconds(10)));
        long[][] state = null;
        long[] delays = new long[4];
        for (int i = 0; i < 4; i++) {
            Transition transition = policy.reserve(state, START, 1, 60 * SECOND);
            state = transition.state();
            delays[i] = transition.decision().delayNanos();
        }
        // Two now; the third when the 1 s limit has room; the fourth when the 10 s limit has.
        assertThat(delays).containsExactly(0, 0, SECOND, 10 * SECOND);
    }

    @Test
    void reserve_costAboveTheLimit_isNeverGranted() {
        Policy policy = Policy.of(Algorithm.STEPPED_SLIDING_WINDOW, Limit.of(2, Duration.ofSeconds(1)));
        Transition transition = policy.reserve(null, START, 3, Long.MAX_VALUE);
        assertThat(transition.decision().allowed()).isFalse();
        assertThat(transition.decision().canSucceed()).isFalse();
        assertThat(transition.changed()).isFalse();
    }

    @Test
    void reserve_tokenBucket_grantsOnlyWhatFitsNow() {
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(1, Duration.ofSeconds(10)));
        long[][] state = policy.reserve(null, START, 1, 60 * SECOND).state();
        Decision second = policy.reserve(state, START, 1, 60 * SECOND).decision();
        assertThat(Algorithm.TOKEN_BUCKET.reservesFutureSlots()).isFalse();
        assertThat(second.allowed()).isFalse();
        assertThat(second.retryAfterNanos()).isEqualTo(10 * SECOND);
    }

    @Test
    void reserve_leakyBucket_queuesUpToTheLongestWait() {
        Policy policy = Policy.of(Algorithm.LEAKY_BUCKET, Limit.of(1, Duration.ofSeconds(1)).withCapacity(5));
        long[][] state = policy.reserve(null, START, 1, 5 * SECOND).state();
        Decision second = policy.reserve(state, START, 1, 5 * SECOND).decision();
        assertThat(second.allowed()).isTrue();
        assertThat(second.delayNanos()).isEqualTo(SECOND);
    }
}
