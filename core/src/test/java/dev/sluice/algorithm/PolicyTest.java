package dev.sluice.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PolicyTest {

    private static final Limit TEN_PER_SECOND = Limit.of(10, Duration.ofSeconds(1));

    @Test
    void of_noLimits_isRefused() {
        assertThatThrownBy(() -> Policy.of(Algorithm.TOKEN_BUCKET, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one limit");
    }

    @Test
    void of_moreLimitsThanTheMaximum_isRefused() {
        List<Limit> limits = Collections.nCopies(Policy.MAX_LIMITS + 1, TEN_PER_SECOND);
        assertThatThrownBy(() -> Policy.of(Algorithm.TOKEN_BUCKET, limits))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most " + Policy.MAX_LIMITS);
    }

    @Test
    void of_theMaximumNumberOfLimits_isAccepted() {
        assertThat(Policy.of(Algorithm.TOKEN_BUCKET, Collections.nCopies(Policy.MAX_LIMITS, TEN_PER_SECOND)).limits())
                .hasSize(Policy.MAX_LIMITS);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void apply_costZeroLaterInTheWindow_onlyEvaluatesKeepingTheStateItself(Algorithm algorithm) {
        Policy policy = Policy.of(algorithm, TEN_PER_SECOND, Limit.of(100, Duration.ofMinutes(1)));
        long[][] counted = policy.apply(null, Timeline.START, 3, Long.MAX_VALUE).state();

        Transition look = policy.apply(counted, Timeline.START + 300_000_000L, 0, Long.MAX_VALUE);

        assertThat(look.changed()).isFalse();
        assertThat(look.state()).isSameAs(counted);
        assertThat(look.decision().allowed()).isTrue();
    }

    @Test
    void capacity_severalLimits_isTheSmallest() {
        assertThat(Policy.of(Algorithm.FIXED_WINDOW, TEN_PER_SECOND, Limit.of(3, Duration.ofMinutes(1))).capacity())
                .isEqualTo(3);
    }

    @Test
    void synchronised_windowAlgorithm_isSyncedNotLeasedAndEqualOnlyToSynced() {
        Policy plain = Policy.of(Algorithm.SLIDING_WINDOW_COUNTER, TEN_PER_SECOND);
        Policy synced = plain.synchronised();

        assertThat(synced.synced()).isTrue();
        assertThat(synced.leased()).isFalse();
        assertThat(synced.synchronised()).isSameAs(synced);
        assertThat(synced).isNotEqualTo(plain).isEqualTo(plain.synchronised());
        assertThat(synced.hashCode()).isEqualTo(plain.synchronised().hashCode());
        assertThat(synced.toString()).endsWith(" synced]");
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void synchronised_everyAlgorithm_isSynchronisedWithTheStoresBudget(Algorithm algorithm) {
        Policy synced = Policy.of(algorithm, TEN_PER_SECOND).synchronised();

        assertThat(synced.synced()).isTrue();
        assertThat(synced.syncBudget()).isEmpty();
    }

    @Test
    void synchronisedWithABudget_carriesItAndDiffersFromTheStoresBudget() {
        Policy plain = Policy.of(Algorithm.TOKEN_BUCKET, TEN_PER_SECOND);
        Policy five = plain.synchronised(5);

        assertThat(five.syncBudget()).hasValue(5);
        assertThat(five).isEqualTo(plain.synchronised(5)).isNotEqualTo(plain.synchronised())
                .isNotEqualTo(plain.synchronised(6));
        assertThat(five.hashCode()).isEqualTo(plain.synchronised(5).hashCode());
        assertThat(five.withLimits(List.of(Limit.of(20, Duration.ofSeconds(1)))).syncBudget()).hasValue(5);
        assertThat(five.toString()).endsWith(" synced budget 5]");
        assertThatThrownBy(() -> plain.synchronised(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a synchronised policy's budget is 0 or more permits, got -1");
    }

    @Test
    void synchronisedAndLeasing_eitherOrder_throws() {
        Policy window = Policy.of(Algorithm.FIXED_WINDOW, TEN_PER_SECOND);

        assertThatThrownBy(() -> window.leasing().synchronised()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a leased policy cannot also be synchronised: choose one");
        assertThatThrownBy(() -> window.synchronised().leasing()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a synchronised policy cannot also be leased: choose one");
    }
}
