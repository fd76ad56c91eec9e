package dev.sluice.algorithm;

import static dev.sluice.algorithm.UndoTest.assertNeverMorePermissive;
import static dev.sluice.algorithm.UndoTest.assertSameFuture;
import static dev.sluice.algorithm.UndoTest.granted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Policy#settle}: a request counted at its estimate and settled at its actual cost leaves the state as if it had
 * been counted at its actual cost from the start where docs/design/costs.md says so, never more permissive than that
 * anywhere, and charges an excess now, as a debt.
 */
class SettleTest {

    private static final long START = Timeline.START;
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;

    /** Five tokens a second and twenty a minute, so that every limit of a policy is seen to be settled. */
    private static Policy tokens(Algorithm algorithm) {
        return UndoTest.policy(algorithm).inUnit("tokens");
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_LOG", "SLIDING_WINDOW_COUNTER",
            "STEPPED_SLIDING_WINDOW"})
    void settleBelow_windowAlgorithmLongAfterWithOthersBetween_equalsCountedAtTheActualCost(Algorithm algorithm) {
        Policy policy = tokens(algorithm);
        long at = START + 995 * MS;
        long @Nullable [][] before = granted(policy, null, START);
        long[] others = {at + 2 * MS, at + 700 * MS, at + 20 * SECOND};
        long @Nullable [][] reserved = policy.apply(before, at, 3, Long.MAX_VALUE).state();
        long @Nullable [][] withOthers = granted(policy, reserved, others);
        long @Nullable [][] actual = granted(policy, policy.apply(before, at, 1, Long.MAX_VALUE).state(), others);

        // 30 s later: the second's window of the count is long gone, the minute's still counts it.
        Transition settled = policy.settle(withOthers, at + 30 * SECOND, 3, 1, at);

        assertThat(settled.changed()).isTrue();
        assertSameFuture(policy, settled.state(), actual, at + 30 * SECOND);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void settleBelow_bucketOrGcraWithRandomOthersBetween_isNeverMorePermissiveThanCountedAtTheActualCost(
            Algorithm algorithm) {
        Policy policy = tokens(algorithm);
        Random random = new Random(34);
        for (int trial = 0; trial < 50; trial++) {
            long at = START + random.nextInt(2_000) * MS;
            long @Nullable [][] before = random.nextBoolean() ? null
                    : granted(policy, null, START, START + random.nextInt(900) * MS);
            long estimate = 2 + random.nextInt(3);
            long actualCost = random.nextInt((int) estimate);
            Transition reserved = policy.apply(before, at, estimate, Long.MAX_VALUE);
            if (!reserved.decision().allowed()) {
                continue;
            }
            long @Nullable [][] real = reserved.state();
            long @Nullable [][] counterfactual = actualCost == 0 ? before
                    : policy.apply(before, at, actualCost, Long.MAX_VALUE).state();
            if (counterfactual == null) {
                // A fresh key, as a state: one permit counted and given back at once (exact).
                counterfactual = policy.undo(policy.apply(null, at, 1, Long.MAX_VALUE).state(), at, 1, at).state();
            }
            long now = at;
            for (int other = random.nextInt(6); other > 0; other--) {
                now += random.nextInt(1_500) * MS;
                Transition granted = policy.apply(real, now, 1, Long.MAX_VALUE);
                if (granted.decision().allowed()) {
                    real = granted.state();
                    Transition alsoThere = policy.apply(counterfactual, now, 1, Long.MAX_VALUE);
                    assertThat(alsoThere.decision().allowed()).as("the counterfactual holds more").isTrue();
                    counterfactual = alsoThere.state();
                }
            }
            now += random.nextInt(3_000) * MS;

            Transition settled = policy.settle(real, now, estimate, actualCost, at);

            assertNeverMorePermissive(policy, settled.state(), counterfactual, now);
        }
    }

    @Test
    void settleBelow_tokenBucketThatCouldHaveBeenFull_givesBackWhatTheBoundAllowsAndNoMore() {
        // docs/design/costs.md: capacity 10 at one token a second; 10 reserved, 2 used, a request of 2 at 3 s.
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofSeconds(10))).inUnit("tokens");
        long[][] reserved = policy.apply(null, START, 10, 0).state();
        long[][] withOther = policy.apply(reserved, START + 3 * SECOND, 2, 0).state();
        long[][] actual = policy.apply(policy.apply(null, START, 2, 0).state(), START + 3 * SECOND, 2, 0).state();

        Transition settled = policy.settle(withOther, START + 3 * SECOND, 10, 2, START);

        // The whole difference (8) would leave 9 tokens where the key counted at its actual cost has 8 (it lost one
        // to being full at 2 s): a request of 9 would pass, 11 at one instant against a burst of 10.
        assertThat(settled.decision().remaining()).isEqualTo(8);
        assertSameFuture(policy, settled.state(), actual, START + 3 * SECOND);
    }

    @Test
    void settleBelow_gcraLongAfterTheCount_givesBackMoreThanTheUndoOfAllOrNothing() {
        // 10,000 a minute (6 ms each): 4,000 reserved, 300 used, settled 10 s later on a key busy before.
        Policy policy = Policy.of(Algorithm.GCRA, Limit.of(10_000, Duration.ofMinutes(1))).inUnit("tokens");
        long[][] busy = policy.apply(null, START, 5_000, 0).state();
        long[][] reserved = policy.apply(busy, START, 4_000, 0).state();
        long later = START + 10 * SECOND;

        long settledTat = policy.settle(reserved, later, 4_000, 300, START).state()[0][0];
        long undoneTat = policy.undo(reserved, later, 3_700, START).state()[0][0];

        // Held back: the 8.2 s the key counted at 300 could have idled after 1.8 s; the undo holds back all 10 s.
        assertThat(reserved[0][0] - settledTat).isEqualTo(3_700 * 6 * MS - (10 * SECOND - 300 * 6 * MS));
        assertThat(reserved[0][0] - undoneTat).isEqualTo(3_700 * 6 * MS - 10 * SECOND);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA", "FIXED_WINDOW", "SLIDING_WINDOW_LOG",
            "SLIDING_WINDOW_COUNTER", "STEPPED_SLIDING_WINDOW"})
    void settleBelow_rightAfterTheCount_equalsCountedAtTheActualCost(Algorithm algorithm) {
        Policy policy = tokens(algorithm);
        long at = START + 300 * MS;
        long @Nullable [][] before = granted(policy, null, START, START + 100 * MS);

        Transition settled = policy.settle(policy.apply(before, at, 3, 0).state(), at, 3, 1, at);

        assertSameFuture(policy, settled.state(), policy.apply(before, at, 1, 0).state(), at);
    }

    @Test
    void settleAbove_tokenBucket_chargesTheExcessNowAsADebtPaidBackBeforeTheNextGrant() {
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofSeconds(10))).inUnit("tokens");
        long[][] reserved = policy.apply(null, START, 4, 0).state();

        Transition settled = policy.settle(reserved, START + 2 * SECOND, 4, 17, START);

        // 6 left, refilled to 8 at 2 s, less the excess of 13: 5 owed; one more token is 6 s of refill away.
        assertThat(settled.decision().remaining()).isZero();
        assertThat(policy.apply(settled.state(), START + 2 * SECOND, 1, 0).decision().retryAfterNanos())
                .isEqualTo(6 * SECOND);
        assertThat(policy.apply(settled.state(), START + 8 * SECOND - 1, 1, 0).decision().allowed()).isFalse();
        assertThat(policy.apply(settled.state(), START + 8 * SECOND, 1, 0).decision().allowed()).isTrue();
    }

    @Test
    void settleAbove_fixedWindowAfterItsWindow_chargesTheExcessInTheWindowOfTheSettle() {
        Policy policy = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(10, Duration.ofMinutes(1))).inUnit("tokens");
        long[][] reserved = policy.apply(null, START + 59 * SECOND, 1, 0).state();

        // Started at 0:59, settled at 1:01: counted at the start, the excess would be forgiven with its window.
        Transition settled = policy.settle(reserved, START + 61 * SECOND, 1, 9, START + 59 * SECOND);

        assertThat(settled.decision().remaining()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA", "FIXED_WINDOW", "SLIDING_WINDOW_LOG",
            "SLIDING_WINDOW_COUNTER", "STEPPED_SLIDING_WINDOW"})
    void settleAtTheEstimate_changesNothing(Algorithm algorithm) {
        Policy policy = tokens(algorithm);
        long[][] reserved = policy.apply(null, START, 3, 0).state();

        Transition settled = policy.settle(reserved, START + SECOND, 3, 3, START);

        assertThat(settled.changed()).isFalse();
        assertThat(settled.state()).isSameAs(reserved);
    }

    @Test
    void settle_estimateBelowOneOrNegativeActual_isRefused() {
        Policy policy = tokens(Algorithm.FIXED_WINDOW);
        assertThatThrownBy(() -> policy.settle(null, START, 0, 1, START)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("estimate of at least 1");
        assertThatThrownBy(() -> policy.settle(null, START, 1, -1, START))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("actual cost of 0 or more");
    }

    @Test
    void inUnit_leakyBucket_isRefusedNamingWhyAndGcra() {
        assertThatThrownBy(() -> Policy.of(Algorithm.LEAKY_BUCKET, Limit.of(10, Duration.ofSeconds(1)))
                .inUnit("tokens")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the leaky bucket cannot count tokens settled when a request ends (it gives each request"
                        + " a slot of its estimated length in the queue and releases the requests behind it at"
                        + " theirs, so the unused part of a slot cannot be given back; GCRA can)");
    }

    @Test
    void inUnit_namesNoUnitOrConcurrentRequests_isRefused() {
        Policy policy = tokens(Algorithm.GCRA);
        assertThatThrownBy(() -> policy.inUnit("two words")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> policy.inUnit("concurrent-requests")).isInstanceOf(IllegalArgumentException.class);
        assertThat(policy.inUnit("bytes").unit()).isEqualTo("bytes");
        assertThat(policy.inUnit(Policy.REQUESTS).metered()).isFalse();
        assertThat(policy).isNotEqualTo(UndoTest.policy(Algorithm.GCRA));
    }
}
