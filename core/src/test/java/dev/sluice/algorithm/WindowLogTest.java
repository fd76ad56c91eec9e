package dev.sluice.algorithm;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.internal.DurationText;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WindowLogTest {

    @Test
    void steppedSlidingWindow_fullWindow_nextFitsAtTheBoundaryWhereTheFirstStepSlidesOut() {
        // 10 per 4 s: steps of 10 ms, 400 of them. Five permits at t = 0 (step 0), five at t = 1.005 s (step 100).
        Timeline window = new Timeline(Algorithm.STEPPED_SLIDING_WINDOW, Limit.of(10, ofSeconds(4)));
        for (int i = 0; i < 5; i++) {
            assertThat(window.request().allowed()).isTrue();
        }
        window.at(ofMillis(1_005));
        for (int i = 0; i < 5; i++) {
            assertThat(window.request().allowed()).isTrue();
        }

        // Step 0 leaves the window when step 400 begins: at exactly t = 4.000 s.
        Decision full = window.at(ofSeconds(2)).request();
        assertThat(full.allowed()).isFalse();
        assertThat(full.retryAfter()).isEqualTo(ofSeconds(2));
        assertThat(full.resetAfter()).isEqualTo(ofSeconds(3));

        assertThat(window.at(ofSeconds(4).minusNanos(1)).request().allowed()).isFalse();
        assertThat(window.at(ofSeconds(4)).drain()).isEqualTo(5);
        Decision again = window.request();
        assertThat(again.retryAfter()).isEqualTo(ofSeconds(1));
    }

    @Test
    void steppedSlidingWindow_costSpanningSteps_waitsForEnoughStepsToLeave() {
        Timeline window = new Timeline(Algorithm.STEPPED_SLIDING_WINDOW, Limit.of(10, ofSeconds(4)));
        window.request(3);
        window.at(ofMillis(500)).request(3);
        window.at(ofMillis(900)).request(4);
        // 5 more need the first two steps (3 + 3 permits) to leave: at 4.5 s.
        assertThat(window.at(ofSeconds(1)).request(5).retryAfter()).isEqualTo(ofMillis(3_500));
    }

    /**
     * Issue 38.10: a log of 5,000 an hour, its permits granted one a nanosecond, keeps at most 1,000 entries (a grant
     * copies at most 2,000 longs), still grants exactly 5,000 in the hour, and frees them no sooner than the exact log
     * would: never more permissive, and all free once the last grant's hour is over.
     */
    @Test
    void slidingWindowLog_moreGrantsThanItsEntries_staysBoundedAndNeverFreesEarly() {
        Timeline log = new Timeline(Algorithm.SLIDING_WINDOW_LOG, Limit.of(5_000, Duration.ofHours(1)));
        for (int i = 0; i < 5_000; i++) {
            assertThat(log.at(Duration.ofNanos(i)).request().allowed()).as("grant %d", i + 1).isTrue();
            assertThat(log.state()[0].length).isLessThanOrEqualTo(2 * WindowLog.MAX_LOG_ENTRIES);
        }
        assertThat(log.request().allowed()).as("the 5,001st in the hour").isFalse();

        // The exact log frees the grant of nanosecond k at one hour and k nanoseconds: k + 1 of them by then.
        for (long k : new long[] {0, 1, 3_999, 4_000, 4_998}) {
            assertThat(log.at(Duration.ofHours(1).plusNanos(k)).peek().remaining()).as("free %d ns past the hour", k)
                    .isLessThanOrEqualTo(k + 1);
        }
        assertThat(log.at(Duration.ofHours(1).plusNanos(4_999)).peek().remaining()).isEqualTo(5_000);
    }

    @ParameterizedTest
    @CsvSource({"10s, 10ms", "10001ms, 100ms", "60s, 100ms", "61s, 1s", "1h, 1s", "2h, 60s", "1d, 60s",
        "2d, 1h", "366d, 1h"})
    void steppedSlidingWindow_stepSize_followsTheInterval(String interval, String step) {
        assertThat(WindowLog.stepNanos(DurationText.parse(interval).orElseThrow().toNanos()))
                .isEqualTo(DurationText.parse(step).orElseThrow().toNanos());
    }

    @Test
    void slidingWindowLog_randomArrivals_matchABruteForceModel() {
        Random random = new Random(20261122);
        for (int run = 0; run < 200; run++) {
            int permits = 1 + random.nextInt(8);
            long window = 1 + random.nextInt(1_000);
            Timeline log = new Timeline(Algorithm.SLIDING_WINDOW_LOG, Limit.of(permits, Duration.ofNanos(window)));
            Deque<Long> granted = new ArrayDeque<>();
            long now = Timeline.START;
            for (int i = 0; i < 300; i++) {
                now += random.nextInt(4) == 0 ? 0 : random.nextInt((int) window);
                log.at(Duration.ofNanos(now - Timeline.START));
                while (!granted.isEmpty() && granted.peekFirst() <= now - window) {
                    granted.pollFirst();
                }
                boolean allowed = log.request().allowed();
                assertThat(allowed)
                        .as("run %d, request %d: %d granted in the last %d ns, limit %d", run, i, granted.size(),
                                window, permits)
                        .isEqualTo(granted.size() < permits);
                if (allowed) {
                    granted.addLast(now);
                }
            }
        }
    }

    @Test
    void slidingWindowLog_manyPermitsAtOneInstant_keepOneEntry() {
        Timeline log = new Timeline(Algorithm.SLIDING_WINDOW_LOG, Limit.of(1_000, ofSeconds(1)));
        for (int i = 0; i < 1_000; i++) {
            log.request();
        }
        assertThat(log.state()[0]).hasSize(2);
        assertThat(log.request().retryAfter()).isEqualTo(ofSeconds(1));
    }

    @Test
    void slidingWindowLog_expiredEntries_areDroppedOnTheNextGrant() {
        Timeline log = new Timeline(Algorithm.SLIDING_WINDOW_LOG, Limit.of(3, ofSeconds(1)));
        log.request();
        log.at(ofMillis(400)).request();
        log.at(ofMillis(1_200)).request();
        assertThat(log.state()[0]).hasSize(4);
    }

    @Test
    void steppedSlidingWindow_nextPermit_isTheExactBoundaryWhereTheOldestCountedStepLeaves() {
        // 10 per 4 s, 10 ms steps. A grant at 1.234 s counts in the step of 1.230 s, which leaves at 5.230 s.
        Timeline window = new Timeline(Algorithm.STEPPED_SLIDING_WINDOW, Limit.of(10, ofSeconds(4)));
        assertThat(window.at(ofMillis(1_234)).request().nextPermit()).isEqualTo(ofMillis(3_996));
        Decision second = window.at(ofMillis(2_500)).request(8);
        assertThat(second.remaining()).isEqualTo(1);
        assertThat(second.nextPermit()).isEqualTo(ofMillis(2_730));
        assertThat(second.resetAfter()).isEqualTo(ofMillis(4_000));

        // A cost of 3 needs the second step (8 permits) to leave too; one more permit comes with the first.
        Decision rejected = window.at(ofSeconds(3)).request(3);
        assertThat(rejected.retryAfter()).isEqualTo(ofMillis(3_500));
        assertThat(rejected.nextPermit()).isEqualTo(ofMillis(2_230));
        assertThat(window.at(ofMillis(5_230).minusNanos(1)).peek().remaining()).isEqualTo(1);
        assertThat(window.at(ofMillis(5_230)).peek().remaining()).isEqualTo(2);
    }

    @Test
    void slidingWindowLog_nextPermit_isTheOldestGrantsExpiry() {
        Timeline log = new Timeline(Algorithm.SLIDING_WINDOW_LOG, Limit.of(3, ofSeconds(1)));
        assertThat(log.peek().nextPermitNanos()).isZero();
        log.at(ofMillis(100)).request();
        Decision second = log.at(ofMillis(400)).request();
        assertThat(second.nextPermit()).isEqualTo(ofMillis(700));
        log.request();
        Decision rejected = log.at(ofMillis(600)).request();
        assertThat(rejected.nextPermit()).isEqualTo(ofMillis(500)).isEqualTo(rejected.retryAfter());
    }

}
