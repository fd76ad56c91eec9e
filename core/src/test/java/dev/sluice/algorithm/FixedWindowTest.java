package dev.sluice.algorithm;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Decision;
import dev.sluice.Limit;
import org.junit.jupiter.api.Test;

class FixedWindowTest {

    private static final Limit FIVE_PER_SECOND = Limit.of(5, ofSeconds(1));

    @Test
    void fixedWindow_windowFull_rejectsUntilTheNextWindow() {
        Timeline window = new Timeline(Algorithm.FIXED_WINDOW, FIVE_PER_SECOND);
        window.at(ofMillis(300));
        assertThat(window.drain()).isEqualTo(5);
        Decision rejected = window.request();
        assertThat(rejected.retryAfter()).isEqualTo(ofMillis(700));
        assertThat(rejected.resetAfter()).isEqualTo(ofMillis(700));
        assertThat(window.at(ofMillis(1000)).drain()).isEqualTo(5);
    }

    @Test
    void fixedWindow_acrossABoundary_letsTwiceTheLimitThroughInOnePeriod() {
        // The documented weakness of fixed windows: 5 at the end of one window and 5 at the start of the next,
        // 10 permits within 2 ms although the limit is 5 per second.
        Timeline window = new Timeline(Algorithm.FIXED_WINDOW, FIVE_PER_SECOND);
        assertThat(window.at(ofMillis(999)).drain()).isEqualTo(5);
        assertThat(window.at(ofMillis(1001)).drain()).isEqualTo(5);
    }

    @Test
    void fixedWindow_capacityOtherThanPermits_isRefused() {
        assertThatThrownBy(() -> Policy.of(Algorithm.FIXED_WINDOW, FIVE_PER_SECOND.withCapacity(6)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the fixed window has no separate capacity")
                .hasMessageContaining("5/1s");
    }

    @Test
    void fixedWindow_nextPermit_isTheWindowEndOnceAnyPermitIsTaken() {
        Timeline window = new Timeline(Algorithm.FIXED_WINDOW, FIVE_PER_SECOND);
        assertThat(window.at(ofMillis(300)).peek().nextPermitNanos()).isZero();
        assertThat(window.request().nextPermit()).isEqualTo(ofMillis(700));
        window.drain();
        Decision rejected = window.at(ofMillis(900)).request();
        assertThat(rejected.nextPermit()).isEqualTo(ofMillis(100)).isEqualTo(rejected.retryAfter());
    }

}
