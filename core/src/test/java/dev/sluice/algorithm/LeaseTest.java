package dev.sluice.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.internal.state.Lease;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class LeaseTest {

    private static final long START = Timeline.START;
    private static final long MS = 1_000_000L;
    private static final long LIFETIME = 10 * MS;
    private static final Limit HUNDRED_PER_SECOND = Limit.of(100, Duration.ofSeconds(1));

    private static Policy policy(Algorithm algorithm) {
        return Policy.of(algorithm, HUNDRED_PER_SECOND).leasing();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"SLIDING_WINDOW_LOG", "LEAKY_BUCKET"})
    void leasing_algorithmThatCannotLease_isRefusedSayingWhy(Algorithm algorithm) {
        assertThat(algorithm.leases()).isFalse();
        assertThatThrownBy(() -> Policy.of(algorithm, HUNDRED_PER_SECOND).leasing())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot lease (it ");
    }

    @Test
    void leasing_leasedPolicy_differsFromTheUnleasedOne() {
        Policy plain = Policy.of(Algorithm.GCRA, HUNDRED_PER_SECOND);
        assertThat(plain.leased()).isFalse();
        assertThat(plain.leasing()).isNotEqualTo(plain).isEqualTo(plain.leasing());
        assertThat(plain.leasing().leased()).isTrue();
        assertThat(plain.leasing().toString()).endsWith(" leased]");
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA", "FIXED_WINDOW", "SLIDING_WINDOW_COUNTER",
            "STEPPED_SLIDING_WINDOW"})
    void lease_freshKey_countsAnEighthOfWhatIsLeftAtOnce(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        Lease lease = policy.lease(null, START, 1, 50, LIFETIME, 0);

        assertThat(lease.permits()).isEqualTo(100 / Lease.SLICE_SHARE);
        assertThat(lease.transition().changed()).isTrue();
        assertThat(lease.transition().decision().allowed()).isTrue();
        assertThat(lease.transition().decision().remaining()).isEqualTo(100 - 12);
        assertThat(policy.apply(lease.transition().state(), START, 0, 0).decision().remaining()).isEqualTo(88);
    }

    @Test
    void lease_askedLessThanAnEighth_countsWhatWasAsked() {
        Lease lease = policy(Algorithm.FIXED_WINDOW).lease(null, START, 2, 5, LIFETIME, 0);
        assertThat(lease.permits()).isEqualTo(5);
        assertThat(lease.transition().decision().remaining()).isEqualTo(95);
    }

    @Test
    void lease_fewPermitsLeft_decidesTheRequestAlone() {
        Policy policy = policy(Algorithm.FIXED_WINDOW);
        long[][] state = policy.apply(null, START, 90, 0).state();

        Lease lease = policy.lease(state, START, 2, 50, LIFETIME, 0);

        assertThat(lease.permits()).isZero();
        assertThat(lease.validForNanos()).isZero();
        assertThat(lease.transition().decision().allowed()).isTrue();
        assertThat(lease.transition().decision().remaining()).isEqualTo(8);
    }

    @Test
    void lease_nothingLeft_rejectsTheRequestAndCountsNothing() {
        Policy policy = policy(Algorithm.TOKEN_BUCKET);
        long[][] state = policy.apply(null, START, 100, 0).state();

        Lease lease = policy.lease(state, START, 1, 50, LIFETIME, 0);

        assertThat(lease.permits()).isZero();
        assertThat(lease.transition().decision().allowed()).isFalse();
        assertThat(lease.transition().changed()).isFalse();
    }

    @Test
    void lease_costZero_countsASliceTakenAheadOfNeed() {
        Lease lease = policy(Algorithm.SLIDING_WINDOW_COUNTER).lease(null, START, 0, 10, LIFETIME, 0);
        assertThat(lease.permits()).isEqualTo(10);
        assertThat(lease.transition().decision().remaining()).isEqualTo(90);
    }

    @Test
    void lease_costZeroAndTooFewLeft_countsNothing() {
        Policy policy = policy(Algorithm.FIXED_WINDOW);
        long[][] state = policy.apply(null, START, 95, 0).state();

        Lease lease = policy.lease(state, START, 0, 10, LIFETIME, 0);

        assertThat(lease.permits()).isZero();
        assertThat(lease.transition().changed()).isFalse();
        assertThat(lease.transition().decision().remaining()).isEqualTo(5);
    }

    @Test
    void lease_askedNoMoreThanTheCost_decidesTheRequestAlone() {
        Lease lease = policy(Algorithm.GCRA).lease(null, START, 3, 3, LIFETIME, 0);
        assertThat(lease.permits()).isZero();
        assertThat(lease.transition().decision().remaining()).isEqualTo(97);
    }

    @Test
    void fixedWindow_lease_isValidUntilTheWindowEndsLessTheClockError() {
        long at = START + 300 * MS;
        Lease lease = policy(Algorithm.FIXED_WINDOW).lease(null, at, 1, 50, LIFETIME, MS);
        assertThat(lease.validForNanos()).isEqualTo(700 * MS - MS);
    }

    @Test
    void slidingWindowCounter_lease_isValidUntilTheWindowEnds() {
        Lease lease = policy(Algorithm.SLIDING_WINDOW_COUNTER).lease(null, START + 999 * MS, 1, 50, LIFETIME, 0);
        assertThat(lease.validForNanos()).isEqualTo(MS);
    }

    @Test
    void steppedSlidingWindow_lease_isValidUntilTheStepEnds() {
        // A one-second window has 10 ms steps.
        Lease lease = policy(Algorithm.STEPPED_SLIDING_WINDOW).lease(null, START + 304 * MS, 1, 50, LIFETIME, 0);
        assertThat(lease.validForNanos()).isEqualTo(6 * MS);
    }

    @Test
    void steppedSlidingWindow_leaseNearTheStepEnd_isScaledToWhatTheNodeUsesBeforeIt() {
        // 2 ms of the 10 ms step left: a fifth of the 40 permits the node uses in a 10 ms lifetime.
        Lease lease = policy(Algorithm.STEPPED_SLIDING_WINDOW).lease(null, START + 8 * MS, 1, 40, LIFETIME, 0);
        assertThat(lease.validForNanos()).isEqualTo(2 * MS);
        assertThat(lease.permits()).isEqualTo(8);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void bucket_lease_isValidForTheLifetime(Algorithm algorithm) {
        Lease lease = policy(algorithm).lease(null, START + 304 * MS, 1, 50, LIFETIME, MS);
        assertThat(lease.validForNanos()).isEqualTo(LIFETIME - MS);
    }

    @Test
    void lease_severalLimits_isValidUntilTheEarliestWindowEnds() {
        Policy policy = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(1000, Duration.ofMinutes(1)),
                HUNDRED_PER_SECOND).leasing();
        Lease lease = policy.lease(null, START + 250 * MS, 1, 50, LIFETIME, 0);
        assertThat(lease.validForNanos()).isEqualTo(750 * MS);
        assertThat(lease.permits()).isEqualTo(12);
    }

    @Test
    void lease_windowEndLessThanTheClockError_decidesTheRequestAlone() {
        Lease lease = policy(Algorithm.FIXED_WINDOW).lease(null, START + 999_500_000L, 1, 50, LIFETIME, MS);
        assertThat(lease.permits()).isZero();
        assertThat(lease.transition().decision().remaining()).isEqualTo(99);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_COUNTER", "STEPPED_SLIDING_WINDOW"})
    void window_giveBackInTheSameWindowOrStep_restoresThePermits(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        Lease lease = policy.lease(null, START + 2 * MS, 1, 50, LIFETIME, 0);

        Transition back = policy.giveBack(lease.transition().state(), START + 5 * MS, 7, START + 2 * MS);

        assertThat(back.changed()).isTrue();
        assertThat(back.decision().remaining()).isEqualTo(88 + 7);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_COUNTER", "STEPPED_SLIDING_WINDOW"})
    void window_giveBackOfAWholeSlice_leavesTheKeyAsIfNeverCounted(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        Lease lease = policy.lease(null, START + 2 * MS, 1, 50, LIFETIME, 0);

        Transition back = policy.giveBack(lease.transition().state(), START + 3 * MS, 12, START + 2 * MS);

        assertThat(back.decision().remaining()).isEqualTo(100);
        assertThat(back.decision().resetAfterNanos()).isZero();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_COUNTER", "STEPPED_SLIDING_WINDOW"})
    void window_giveBackAfterTheWindowOrStep_changesNothing(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        Lease lease = policy.lease(null, START + 2 * MS, 1, 50, LIFETIME, 0);
        long afterStep = START + 10 * MS;
        long afterWindow = START + 1000 * MS;

        Transition back = policy.giveBack(lease.transition().state(),
                algorithm == Algorithm.STEPPED_SLIDING_WINDOW ? afterStep : afterWindow, 7, START + 2 * MS);

        assertThat(back.changed()).isFalse();
        assertThat(back.state()).isSameAs(lease.transition().state());
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void bucket_giveBack_changesNothing(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        Lease lease = policy.lease(null, START, 1, 50, LIFETIME, 0);

        Transition back = policy.giveBack(lease.transition().state(), START, 7, START);

        assertThat(back.changed()).isFalse();
        assertThat(back.decision().remaining()).isEqualTo(88);
    }

    @Test
    void giveBack_moreThanWasCounted_neverGoesBelowZero() {
        Policy policy = policy(Algorithm.FIXED_WINDOW);
        long[][] state = policy.apply(null, START, 3, 0).state();
        assertThat(policy.giveBack(state, START, 10, START).decision().remaining()).isEqualTo(100);
    }
}
