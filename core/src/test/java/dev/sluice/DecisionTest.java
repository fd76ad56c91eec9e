package dev.sluice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DecisionTest {

    private static Decision allowed(long remaining, long delay) {
        return new Decision(true, 10, remaining, 0, 5, delay, "p");
    }

    private static Decision rejected(long retryAfter) {
        return new Decision(false, 10, 0, retryAfter, 5, 0, "p");
    }

    @Test
    void constructor_inconsistentValues_areRefused() {
        assertThatThrownBy(() -> new Decision(false, 10, 0, 0, 5, 0, "p")).hasMessageContaining("retryAfter 0");
        assertThatThrownBy(() -> new Decision(true, 10, 0, 7, 5, 0, "p")).hasMessageContaining("retryAfter 7");
        assertThatThrownBy(() -> new Decision(true, 10, -1, 0, 5, 0, "p")).hasMessageContaining("remaining -1");
        assertThatThrownBy(() -> new Decision(false, 10, 0, 3, 5, 2, "p")).hasMessageContaining("delay 2");
    }

    @Test
    void constructor_nextPermitNegativeOrAfterTheRetry_isRefused() {
        assertThatThrownBy(() -> new Decision(true, 10, 9, 0, -1, 5, 0, "p", false))
                .hasMessageContaining("nextPermit -1");
        assertThatThrownBy(() -> new Decision(false, 10, 0, 3, 4, 5, 0, "p", false))
                .hasMessageContaining("retryAfter 3 but nextPermit 4");
        assertThat(new Decision(false, 10, 0, 3, 3, 5, 0, "p", false).nextPermitNanos()).isEqualTo(3);
        assertThat(new Decision(false, 10, 8, Decision.NEVER, 4, 5, 0, "p", false).nextPermitNanos()).isEqualTo(4);
    }

    @Test
    void constructor_withoutNextPermit_derivesAnUpperBound() {
        assertThat(allowed(3, 0).nextPermitNanos()).as("a grant: the reset").isEqualTo(5);
        assertThat(rejected(2).nextPermitNanos()).as("a rejection: the retry, when sooner").isEqualTo(2);
        assertThat(rejected(9).nextPermitNanos()).as("a rejection: the reset, when sooner").isEqualTo(5);
        assertThat(rejected(Decision.NEVER).nextPermitNanos()).isEqualTo(5);
        assertThat(new Decision(false, 3, 0, 7, 7, 0, "p", true).nextPermitNanos()).isEqualTo(7);
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
