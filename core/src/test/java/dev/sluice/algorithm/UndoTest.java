package dev.sluice.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Algorithm#undo}: a granted request taken back leaves the state as if it had never been counted where the
 * note docs/design/all-or-nothing.md says so, and never more permissive than that anywhere.
 */
class UndoTest {

    private static final long START = Timeline.START;
    private static final long MS = 1_000_000L;

    /** Two limits, so that every limit of a policy is seen to be given back. */
    static Policy policy(Algorithm algorithm) {
        return Policy.of(algorithm, Limit.of(5, Duration.ofSeconds(1)).named("second"),
                Limit.of(20, Duration.ofMinutes(1)).named("minute"));
    }

    /** The state after granted requests of one permit at each of {@code times}. */
    static long @Nullable [][] granted(Policy policy, long @Nullable [][] state, long... times) {
        long @Nullable [][] current = state;
        for (long time : times) {
            Transition transition = policy.apply(current, time, 1, Long.MAX_VALUE);
            assertThat(transition.decision().allowed()).as("request at %d", time - START).isTrue();
            current = transition.state();
        }
        return current;
    }

    /** Whether two states decide every request of 0 to 3 permits alike from {@code from} on, through a minute. */
    static void assertSameFuture(Policy policy, long @Nullable [][] actual, long @Nullable [][] expected,
                                         long from) {
        for (long at = from; at < from + Duration.ofSeconds(61).toNanos(); at += 7 * MS + 1) {
            for (long cost = 0; cost <= 3; cost++) {
                assertThat(policy.apply(actual, at, cost, Long.MAX_VALUE).decision())
                        .as("cost %d at %d ms", cost, (at - START) / MS)
                        .isEqualTo(policy.apply(expected, at, cost, Long.MAX_VALUE).decision());
            }
        }
    }

    /**
     * Whether, limit by limit, {@code actual} grants nothing {@code expected} rejects, never with a shorter delay, and
     * never has more remaining, through a minute.
     */
    static void assertNeverMorePermissive(Policy policy, long[][] actual, long[][] expected, long from) {
        for (int i = 0; i < policy.limits().size(); i++) {
            Policy one = Policy.of(policy.algorithm(), policy.limits().get(i));
            for (long at = from; at < from + Duration.ofSeconds(61).toNanos(); at += 7 * MS + 1) {
                // What remains, on a bare look: a rejection reports it unconsumed, a grant after its cost.
                assertThat(one.apply(new long[][] {actual[i]}, at, 0, Long.MAX_VALUE).decision().remaining())
                        .as("remaining at %d ms", (at - START) / MS)
                        .isLessThanOrEqualTo(one.apply(new long[][] {expected[i]}, at, 0, Long.MAX_VALUE).decision()
                                .remaining());
                for (long cost = 1; cost <= 3; cost++) {
                    Decision mine = one.apply(new long[][] {actual[i]}, at, cost, Long.MAX_VALUE).decision();
                    Decision truth = one.apply(new long[][] {expected[i]}, at, cost, Long.MAX_VALUE).decision();
                    assertThat(!mine.allowed() || truth.allowed()).as("cost %d at %d ms", cost, (at - START) / MS)
                            .isTrue();
                    if (mine.allowed()) {
                        assertThat(mine.delayNanos()).isGreaterThanOrEqualTo(truth.delayNanos());
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void undo_rightAfterApplyOnAFreshKey_equalsNeverApplied(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        Transition counted = policy.apply(null, START, 2, Long.MAX_VALUE);

        Transition undone = policy.undo(counted.state(), START, 2, START);

        assertThat(undone.changed()).isTrue();
        assertThat(undone.decision()).isEqualTo(policy.apply(null, START, 0, Long.MAX_VALUE).decision());
        assertSameFuture(policy, undone.state(), null, START);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void undo_rightAfterApplyOnABusyKey_equalsNeverApplied(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        long at = START + 300 * MS;
        long @Nullable [][] before = granted(policy, null, START, START + 100 * MS, START + 250 * MS);
        Transition counted = policy.apply(before, at, 1, Long.MAX_VALUE);
        assertThat(counted.decision().allowed()).isTrue();

        Transition undone = policy.undo(counted.state(), at, 1, at);

        assertThat(undone.decision()).isEqualTo(policy.apply(before, at, 0, Long.MAX_VALUE).decision());
        assertSameFuture(policy, undone.state(), before, at);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void undo_timeAdvancedOnAKeyIdleBefore_equalsNeverApplied(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        long at = START + 995 * MS;
        Transition counted = policy.apply(null, at, 1, Long.MAX_VALUE);

        // Past the second's window boundary: the window algorithms find the count in the window it was made in.
        long later = at + 10 * MS;
        Transition undone = policy.undo(counted.state(), later, 1, at);

        assertSameFuture(policy, undone.state(), null, later);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW_LOG",
            "SLIDING_WINDOW_COUNTER", "STEPPED_SLIDING_WINDOW"})
    void undo_timeAdvancedOnABusyKey_equalsNeverApplied(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        long at = START + 995 * MS;
        long @Nullable [][] before = granted(policy, null, START, START + 400 * MS, START + 990 * MS);
        Transition counted = policy.apply(before, at, 1, Long.MAX_VALUE);

        long later = at + 10 * MS;
        Transition undone = policy.undo(counted.state(), later, 1, at);

        assertSameFuture(policy, undone.state(), before, later);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"GCRA", "LEAKY_BUCKET"})
    void undo_timeAdvancedOnABusyGcraKey_holdsAtMostTheTimeSinceTheCount(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        long at = START + 10 * MS;
        long @Nullable [][] before = granted(policy, null, START, START + 5 * MS);
        Transition counted = policy.apply(before, at, 1, Long.MAX_VALUE);

        long later = at + 3 * MS;
        Transition undone = policy.undo(counted.state(), later, 1, at);

        assertNeverMorePermissive(policy, undone.state(), before, later);
        // The theoretical arrival time of each limit is later than never counted by exactly the 3 ms since the count.
        long[][] exact = policy.undo(counted.state(), at, 1, at).state();
        for (int i = 0; i < exact.length; i++) {
            assertThat(undone.state()[i][0] - exact[i][0]).isEqualTo(3 * MS);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_LOG", "SLIDING_WINDOW_COUNTER",
            "STEPPED_SLIDING_WINDOW"})
    void undo_otherRequestsInBetween_equalsNeverAppliedWithThem(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        long at = START + 995 * MS;
        long @Nullable [][] before = granted(policy, null, START, START + 400 * MS);
        long[] others = {at, at + 2 * MS, at + 9 * MS};
        long @Nullable [][] counted = policy.apply(before, at, 1, Long.MAX_VALUE).state();
        long @Nullable [][] withOthers = granted(policy, counted, others);

        Transition undone = policy.undo(withOthers, at + 10 * MS, 1, at);

        assertSameFuture(policy, undone.state(), granted(policy, before, others), at + 10 * MS);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA", "LEAKY_BUCKET"})
    void undo_otherRequestsInBetween_isNeverMorePermissiveThanNeverApplied(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        long at = START + 995 * MS;
        long[] others = {at + 2 * MS, at + 150 * MS, at + 390 * MS};
        // A key idle before the count: the one where the key without it may refill or run idle in between.
        long @Nullable [][] withOthers = granted(policy, policy.apply(null, at, 1, Long.MAX_VALUE).state(), others);

        Transition undone = policy.undo(withOthers, at + 400 * MS, 1, at);

        assertNeverMorePermissive(policy, undone.state(), granted(policy, null, others), at + 400 * MS);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET"})
    void undo_otherRequestsAtTheCountsInstant_equalsNeverAppliedWithThem(Algorithm algorithm) {
        Policy policy = policy(algorithm);
        long at = START + 995 * MS;
        long @Nullable [][] before = granted(policy, null, START, START + 400 * MS);
        long @Nullable [][] withOthers = granted(policy, policy.apply(before, at, 1, Long.MAX_VALUE).state(), at, at);

        Transition undone = policy.undo(withOthers, at + 10 * MS, 1, at);

        assertSameFuture(policy, undone.state(), granted(policy, before, at, at), at + 10 * MS);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void undo_costBelowOne_isRefused(Algorithm algorithm) {
        assertThatThrownBy(() -> policy(algorithm).undo(null, START, 0, START))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1");
    }
}
