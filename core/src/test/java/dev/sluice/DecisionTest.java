package dev.sluice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DecisionTest {

    private static Decision allowed(long remaining, long delay) {
        return Decision.granted(10, "p").remaining(remaining).resetIn(5).delay(delay).build();
    }

    private static Decision rejected(long retryAfter) {
        return Decision.rejected(10, "p", retryAfter).resetIn(5).build();
    }

    @Test
    void build_inconsistentValues_areRefused() {
        assertThatThrownBy(() -> Decision.rejected(10, "p", 0).resetIn(5).build())
                .hasMessageContaining("retryAfter 0");
        assertThatThrownBy(() -> Decision.decided(true, 10, "p", 7).resetIn(5).build())
                .hasMessageContaining("retryAfter 7");
        assertThatThrownBy(() -> Decision.granted(10, "p").remaining(-1).resetIn(5)
                .build()).hasMessageContaining("remaining -1");
        assertThatThrownBy(() -> Decision.rejected(10, "p", 3).resetIn(5).delay(2)
                .build()).hasMessageContaining("delay 2");
    }

    @Test
    void build_nextPermitNegativeOrAfterTheRetry_isRefused() {
        assertThatThrownBy(() -> Decision.granted(10, "p").remaining(9).nextPermitIn(-1).resetIn(5).build())
                .hasMessageContaining("nextPermit -1");
        assertThatThrownBy(() -> Decision.rejected(10, "p", 3).nextPermitIn(4).resetIn(5).build())
                .hasMessageContaining("retryAfter 3 but nextPermit 4");
        assertThat(Decision.rejected(10, "p", 3).nextPermitIn(3).resetIn(5).build().nextPermitNanos()).isEqualTo(3);
        assertThat(Decision.rejected(10, "p", Decision.NEVER).remaining(8).nextPermitIn(4).resetIn(5)
                .build().nextPermitNanos()).isEqualTo(4);
    }

    @Test
    void build_withoutNextPermit_derivesAnUpperBound() {
        assertThat(allowed(3, 0).nextPermitNanos()).as("a grant: the reset").isEqualTo(5);
        assertThat(rejected(2).nextPermitNanos()).as("a rejection: the retry, when sooner").isEqualTo(2);
        assertThat(rejected(9).nextPermitNanos()).as("a rejection: the reset, when sooner").isEqualTo(5);
        assertThat(rejected(Decision.NEVER).nextPermitNanos()).isEqualTo(5);
        assertThat(Decision.rejected(3, "p", 7).resetIn(7).storeUnavailable().build().nextPermitNanos()).isEqualTo(7);
    }

    @Test
    void mostRestrictive_rejectionBeatsGrant() {
        assertThat(Decision.mostRestrictive(allowed(0, 0), rejected(1))).isEqualTo(rejected(1));
        assertThat(Decision.mostRestrictive(rejected(1), allowed(0, 0))).isEqualTo(rejected(1));
    }

    @Test
    void mostRestrictive_betweenRejections_longerWaitWins() {
        assertThat(Decision.mostRestrictive(rejected(1), rejected(9))).isEqualTo(rejected(9));
    }

    @Test
    void mostRestrictive_betweenGrants_longerDelayThenFewerRemainingWins() {
        assertThat(Decision.mostRestrictive(allowed(1, 0), allowed(5, 3))).isEqualTo(allowed(5, 3));
        assertThat(Decision.mostRestrictive(allowed(4, 0), allowed(2, 0))).isEqualTo(allowed(2, 0));
    }

    @Test
    void retryAfter_never_isTheLongestDuration() {
        Decision never = rejected(Decision.NEVER);
        assertThat(never.canSucceed()).isFalse();
        assertThat(never.retryAfter().getSeconds()).isEqualTo(Long.MAX_VALUE);
    }
}
