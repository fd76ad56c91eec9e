package dev.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void ceilDiv_roundsAnyRemainderUp() {
        assertThat(Durations.ceilDiv(0, 1_000)).isZero();
        assertThat(Durations.ceilDiv(1, 1_000)).isEqualTo(1);
        assertThat(Durations.ceilDiv(1_000, 1_000)).isEqualTo(1);
        assertThat(Durations.ceilDiv(1_001, 1_000)).isEqualTo(2);
        assertThat(Durations.ceilDiv(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(Durations.ceilDiv(Long.MAX_VALUE, 2)).isEqualTo(Long.MAX_VALUE / 2 + 1);
    }

    @Test
    void saturatedAdd_overflow_staysAtTheBound() {
        assertThat(Durations.saturatedAdd(5, -7)).isEqualTo(-2);
        assertThat(Durations.saturatedAdd(Long.MAX_VALUE - 1, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(Durations.saturatedAdd(Long.MAX_VALUE - 1, 2)).isEqualTo(Long.MAX_VALUE);
        assertThat(Durations.saturatedAdd(1, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(Durations.saturatedAdd(Long.MIN_VALUE, -1)).isEqualTo(Long.MIN_VALUE);
        assertThat(Durations.saturatedAdd(Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(-1);
    }
}
