package dev.sluice.algorithm;

import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import org.junit.jupiter.api.Test;

class SlidingWindowCounterTest {

    private static final Limit TEN_PER_MINUTE = Limit.of(10, ofSeconds(60));

    /**
     * 7 permits in the previous window and 5 in the current one (taken 10 s in, once the 7 weigh little enough),
     * then moves to {@code elapsedMillis} into the current window.
     */
    private static Timeline sevenThenFive(long elapsedMillis) {
        Timeline counter = new Timeline(Algorithm.SLIDING_WINDOW_COUNTER, TEN_PER_MINUTE);
        counter.at(ofSeconds(10));
        for (int i = 0; i < 7; i++) {
            assertThat(counter.request().allowed()).isTrue();
        }
        counter.at(ofSeconds(70));
        for (int i = 0; i < 5; i++) {
            assertThat(counter.request().allowed()).isTrue();
        }
        return counter.at(ofSeconds(60).plusMillis(elapsedMillis));
    }

    @Test
    void slidingWindowCounter_estimateNinePointTwo_allows() {
        // 40% into the current window: 5 + 7 x 0.6 = 9.2 < 10.
        Decision decision = sevenThenFive(24_000).request();
        assertThat(decision.allowed()).isTrue();
        assertThat(decision.remaining()).isZero();
    }

    @Test
    void slidingWindowCounter_estimateTenPointSix_rejectsUntilThePreviousWindowDecays() {
        // 20% in: 5 + 7 x 0.8 = 10.6, over the limit. The weighted part must fall below 5, i.e. 7 x (1 - e) < 5,
        // which first holds strictly after e = 2/7 of the window: at 17,142,857,143 ns.
        Decision decision = sevenThenFive(12_000).request();
        assertThat(decision.allowed()).isFalse();
        assertThat(decision.retryAfterNanos()).isEqualTo(17_142_857_143L - 12_000_000_000L);
        assertThat(decision.resetAfter()).isEqualTo(ofSeconds(108));
    }

    @Test
    void slidingWindowCounter_retryAfter_isTheFirstInstantThatFits() {
        Timeline counter = sevenThenFive(12_000);
        Decision rejected = counter.request();
        counter.afterNanos(rejected.retryAfterNanos() - 1);
        assertThat(counter.request().allowed()).isFalse();
        counter.afterNanos(1);
        assertThat(counter.request().allowed()).isTrue();
    }

    @Test
    void slidingWindowCounter_currentWindowFull_waitsForTheNextWindowToDecayIt() {
        Timeline counter = new Timeline(Algorithm.SLIDING_WINDOW_COUNTER, TEN_PER_MINUTE);
        counter.at(ofSeconds(60));
        assertThat(counter.drain()).isEqualTo(10);
        // In the next window the 10 weigh 10 x (1 - e): one permit fits once that is below 10, right after the start.
        Decision rejected = counter.at(ofSeconds(90)).request();
        assertThat(rejected.retryAfter()).isEqualTo(ofSeconds(30).plusNanos(1));
        assertThat(counter.at(ofSeconds(120)).request().allowed()).isFalse();
        assertThat(counter.at(ofSeconds(120).plusNanos(1)).request().allowed()).isTrue();
        // 6 s in, the old 10 still weigh floor(9.0) = 9, plus the permit just taken: the next fits 1 ns later.
        Decision second = counter.at(ofSeconds(126)).request();
        assertThat(second.allowed()).isFalse();
        assertThat(second.retryAfterNanos()).isEqualTo(1);
    }

    @Test
    void slidingWindowCounter_nextPermit_isWhenTheEstimateNextDropsByOne() {
        // 40% in, the tenth permit is granted (floor(7 x 0.6) + 5 + 1 = 10). One more fits once floor(7 x (1 - e))
        // is 3: from e = 60 s + 1 ns - ceil(4 x 60 s / 7) = 25,714,285,715 ns into the window.
        Decision tenth = sevenThenFive(24_000).request();
        assertThat(tenth.nextPermitNanos()).isEqualTo(25_714_285_715L - 24_000_000_000L);
    }

    @Test
    void slidingWindowCounter_rejectionOfOnePermit_nextPermitIsTheRetry() {
        Decision decision = sevenThenFive(12_000).request();
        assertThat(decision.nextPermitNanos()).isEqualTo(decision.retryAfterNanos());
    }

    @Test
    void slidingWindowCounter_onlyThisWindowCounted_nextPermitIsJustAfterTheNextWindowStarts() {
        // With nothing behind it, this window's one permit weighs fully until 1 ns into the next window.
        Timeline counter = new Timeline(Algorithm.SLIDING_WINDOW_COUNTER, TEN_PER_MINUTE);
        Decision first = counter.at(ofSeconds(75)).request();
        assertThat(first.remaining()).isEqualTo(9);
        assertThat(first.nextPermit()).isEqualTo(ofSeconds(45).plusNanos(1));
        assertThat(counter.at(ofSeconds(120)).peek().remaining()).isEqualTo(9);
        assertThat(counter.at(ofSeconds(120).plusNanos(1)).peek().remaining()).isEqualTo(10);
    }

}
