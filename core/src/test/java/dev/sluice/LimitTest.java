package dev.sluice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LimitTest {

    @Test
    void of_validValues_keepsThemAndNamesTheLimit() {
        Limit limit = Limit.of(100, Duration.ofMinutes(1));
        assertThat(limit.permits()).isEqualTo(100);
        assertThat(limit.period()).isEqualTo(Duration.ofMinutes(1));
        assertThat(limit.capacity()).isEqualTo(100);
        assertThat(limit.name()).isEqualTo("100/1m");
        assertThat(Limit.of(3, Duration.ofMillis(1500)).name()).isEqualTo("3/1500ms");
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE / 2 + 1, Long.MAX_VALUE})
    void of_permitsOutOfRange_namesTheValue(long permits) {
        assertThatThrownBy(() -> Limit.of(permits, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits must be between 1 and " + Limit.MAX_PERMITS + ", got " + permits);
    }

    @Test
    void of_periodOutOfRange_namesTheValue() {
        assertThatThrownBy(() -> Limit.of(1, Duration.ZERO))
                .hasMessageContaining("period must be between 1ns and PT8784H, got PT0S");
        assertThatThrownBy(() -> Limit.of(1, Duration.ofSeconds(-1))).hasMessageContaining("got PT-1S");
        assertThatThrownBy(() -> Limit.of(1, Duration.ofDays(367))).hasMessageContaining("got PT8808H");
        assertThatThrownBy(() -> Limit.of(1, Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("period must be at most PT8784H");
    }

    @Test
    void withCapacity_outOfRange_namesTheValue() {
        Limit limit = Limit.of(10, Duration.ofSeconds(1));
        assertThatThrownBy(() -> limit.withCapacity(0)).hasMessageContaining("capacity must be between 1 and")
                .hasMessageContaining("got 0");
        assertThat(limit.withCapacity(25).capacity()).isEqualTo(25);
    }

    @Test
    void withCapacity_refillLongerThanTheMaximum_isRefused() {
        Limit onePerYear = Limit.of(1, Duration.ofDays(365));
        assertThatThrownBy(() -> onePerYear.withCapacity(100))
                .hasMessageContaining("capacity 100 at 1 per PT8760H takes longer than");
    }

    @Test
    void extremes_withinBounds_areAccepted() {
        Limit most = Limit.of(Limit.MAX_PERMITS, Limit.MAX_PERIOD);
        assertThat(most.capacity()).isEqualTo(Limit.MAX_PERMITS);
        assertThat(Limit.of(1, Duration.ofNanos(1)).name()).isEqualTo("1/1ns");
    }

    @Test
    void of_capacityAndName_equalsTheStepwiseLimit() {
        assertThat(Limit.of(30, Duration.ofMinutes(1), 16, "cell"))
                .isEqualTo(Limit.of(30, Duration.ofMinutes(1)).withCapacity(16).named("cell"));
        assertThatThrownBy(() -> Limit.of(1, Duration.ofDays(365), 100, "slow"))
                .hasMessageContaining("takes longer than");
    }

    @Test
    void named_blank_isRefused() {
        assertThatThrownBy(() -> Limit.of(1, Duration.ofSeconds(1)).named(" "))
                .hasMessageContaining("name must not be blank");
    }

    @Test
    void equals_sameValues_areEqual() {
        assertThat(Limit.of(5, Duration.ofSeconds(1))).isEqualTo(Limit.of(5, Duration.ofMillis(1000)))
                .hasSameHashCodeAs(Limit.of(5, Duration.ofMillis(1000)))
                .isNotEqualTo(Limit.of(5, Duration.ofSeconds(1)).withCapacity(6))
                .isNotEqualTo(Limit.of(5, Duration.ofSeconds(1)).named("other"));
    }
}
