package dev.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Durations written as settings are: the largest whole unit, read back by parse. */
class DurationTextTest {

    @Test
    void format_wholeUnits_takesTheLargestUnitThatSpellsItWhole() {
        assertThat(DurationText.format(Duration.ofMillis(100))).isEqualTo("100ms");
        assertThat(DurationText.format(Duration.ofSeconds(30))).isEqualTo("30s");
        assertThat(DurationText.format(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(DurationText.format(Duration.ofMinutes(5))).isEqualTo("5m");
        assertThat(DurationText.format(Duration.ofHours(2))).isEqualTo("2h");
        assertThat(DurationText.format(Duration.ofDays(1))).isEqualTo("1d");
        assertThat(DurationText.format(Duration.ofNanos(1_500))).isEqualTo("1500ns");
        assertThat(DurationText.format(Duration.ZERO)).isEqualTo("0ns");
    }

    @Test
    void format_anyDuration_isReadBackByParse() {
        for (Duration duration : new Duration[] {Duration.ofMillis(250), Duration.ofSeconds(61), Duration.ofHours(25),
                Duration.ofNanos(7)}) {
            assertThat(DurationText.parse(DurationText.format(duration))).hasValue(duration);
        }
    }
}
