package dev.sluice.algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.internal.Durations;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Algorithm#record}: a request counted after the fact, in the window or step where it was made, against a
 * reference model that keeps every request; and what the decisions say once recorded requests exceed the limit.
 */
class RecordTest {

    private static final long START = Timeline.START;
    private static final long MILLI = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;

    /** A request as the reference model keeps it. */
    private record Made(long at, long cost) {
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_LOG", "SLIDING_WINDOW_COUNTER",
        "STEPPED_SLIDING_WINDOW"})
    void record_randomPastRequests_countExactlyWhatAReferenceModelCounts(Algorithm algorithm) {
        Random random = new Random(7_177L + algorithm.id());
        for (int run = 0; run < 50; run++) {
            long permits = 1_000_000;
            long period = (1 + random.nextInt(120_000)) * MILLI;
            Policy policy = Policy.of(algorithm, Limit.of(permits, Duration.ofNanos(period)));
            List<Made> made = new ArrayList<>();
            long[][] state = null;
            long now = START + random.nextInt(1_000_000_000);
            for (int i = 0; i < 80; i++) {
                now += (long) (random.nextDouble() * period / 4);
                long age = (long) (random.nextDouble() * period * 1.2);
                long cost = 1 + random.nextInt(5);
                Transition transition = policy.record(state, now, cost, age);
                state = transition.state();
                made.add(new Made(now - age, cost));
                for (long later : new long[] {now, now + random.nextInt((int) (period / MILLI)) * MILLI}) {
                    long expected = permits - reference(algorithm, period, made, later);
                    assertThat(policy.apply(state, later, 0, 0).decision().remaining())
                            .as("run %d, request %d, %d ns after the latest", run, i, later - now)
                            .isEqualTo(expected);
                }
            }
        }
    }

    /** What the window holds at {@code t}, from every request made, as each algorithm defines its window. */
    private static long reference(Algorithm algorithm, long period, List<Made> made, long t) {
        long window = Math.floorDiv(t, period);
        long used = 0;
        long current = 0;
        long previous = 0;
        for (Made request : made) {
            long of = Math.floorDiv(request.at(), period);
            switch (algorithm) {
                case FIXED_WINDOW -> used += of == window ? request.cost() : 0;
                case SLIDING_WINDOW_LOG -> used += request.at() + period > t ? request.cost() : 0;
                case STEPPED_SLIDING_WINDOW -> {
                    long step = WindowLog.stepNanos(period);
                    long leaves = (Math.floorDiv(request.at(), step) + Durations.ceilDiv(period, step)) * step;
                    used += leaves > t ? request.cost() : 0;
                }
                case SLIDING_WINDOW_COUNTER -> {
                    current += of == window ? request.cost() : 0;
                    previous += of == window - 1 ? request.cost() : 0;
                }
                default -> throw new AssertionError(algorithm);
            }
        }
        if (algorithm == Algorithm.SLIDING_WINDOW_COUNTER) {
            long elapsed = t - window * period;
            used = Arithmetic.mulDivFloor(previous, period - elapsed, period) + current;
        }
        return used;
    }

    @Test
    void record_steppedWindow_countsTheRequestInTheTenMillisecondStepItWasMadeIn() {
        Policy threePerTenSeconds = Policy.of(Algorithm.STEPPED_SLIDING_WINDOW, Limit.of(3, Duration.ofSeconds(10)));

        long[][] state = threePerTenSeconds.record(null, START, 1, 2_345 * MILLI).state();

        // Made 2.345 s ago, in the step that began 2.35 s ago: it leaves 10 s after that step began.
        Decision now = threePerTenSeconds.apply(state, START, 0, 0).decision();
        assertThat(now.remaining()).isEqualTo(2);
        assertThat(now.nextPermitNanos()).isEqualTo(7_650 * MILLI);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA"})
    void record_bucketBeyondItsLevel_isADebtPaidBackBeforeTheNextGrant(Algorithm algorithm) {
        Policy threePerThreeSeconds = Policy.of(algorithm, Limit.of(3, Duration.ofSeconds(3)));
        assertThat(algorithm.countsPastRequests()).isFalse();

        // Five taken from a full bucket of three: two owed, paid back at one per second, then one more earned.
        long[][] state = threePerThreeSeconds.record(null, START, 5, 0).state();

        Decision owing = threePerThreeSeconds.apply(state, START, 1, Long.MAX_VALUE).decision();
        assertThat(owing.allowed()).isFalse();
        assertThat(owing.remaining()).isZero();
        assertThat(owing.retryAfterNanos()).isEqualTo(3 * SECOND);
        assertThat(owing.nextPermitNanos()).isEqualTo(3 * SECOND);
        assertThat(threePerThreeSeconds.apply(state, START + 3 * SECOND - 1, 1, Long.MAX_VALUE).decision().allowed())
                .isFalse();
        assertThat(threePerThreeSeconds.apply(state, START + 3 * SECOND, 1, Long.MAX_VALUE).decision().allowed())
                .isTrue();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA"})
    void record_bucketPastRequest_neverLeavesMoreThanCountingItAtItsInstant(Algorithm algorithm) {
        Random random = new Random(31_337L + algorithm.id());
        for (int run = 0; run < 2_000; run++) {
            long permits = 1 + random.nextInt(20);
            long period = (1 + random.nextInt(10_000)) * MILLI;
            Policy policy = Policy.of(algorithm, Limit.of(permits, Duration.ofNanos(period)));
            long[][] state = null;
            long now = START;
            for (int i = random.nextInt(12); i > 0; i--) {
                now += (long) (random.nextDouble() * period / permits * 2);
                state = random.nextInt(4) == 0
                        ? policy.record(state, now, 1 + random.nextInt(3), 0).state()
                        : policy.apply(state, now, 1 + random.nextInt((int) permits), 0).state();
            }
            long at = now + (long) (random.nextDouble() * period);
            long later = at + (long) (random.nextDouble() * period);
            long cost = 1 + random.nextInt(2 * (int) permits);
            long[][] countedThen = policy.record(state, at, cost, 0).state();
            long[][] countedNow = policy.record(state, later, cost, later - at).state();
            for (long t : new long[] {later, later + period / 3, later + period}) {
                assertThat(policy.apply(countedNow, t, 0, Long.MAX_VALUE).decision().remaining())
                        .as("run %d at +%d ns", run, t - later)
                        .isLessThanOrEqualTo(policy.apply(countedThen, t, 0, Long.MAX_VALUE).decision().remaining());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA"})
    void record_bucketRequestsCountedOutOfOrder_neverLeaveMoreThanInOrder(Algorithm algorithm) {
        Random random = new Random(4_242L + algorithm.id());
        for (int run = 0; run < 2_000; run++) {
            long permits = 1 + random.nextInt(20);
            long period = (1 + random.nextInt(10_000)) * MILLI;
            Policy policy = Policy.of(algorithm, Limit.of(permits, Duration.ofNanos(period)));
            long[][] state = random.nextBoolean() ? null
                    : policy.apply(null, START, 1 + random.nextInt((int) permits), 0).state();
            long first = START + (long) (random.nextDouble() * period);
            long second = first + (long) (random.nextDouble() * period);
            long now = second + (long) (random.nextDouble() * period);
            long firstCost = 1 + random.nextInt(2 * (int) permits);
            long secondCost = 1 + random.nextInt(2 * (int) permits);
            long[][] inOrder = policy.record(policy.record(state, now, firstCost, now - first).state(), now,
                    secondCost, now - second).state();
            long[][] outOfOrder = policy.record(policy.record(state, now, secondCost, now - second).state(), now,
                    firstCost, now - first).state();
            for (long t : new long[] {now, now + period / 3, now + period, now + 3 * period}) {
                assertThat(policy.apply(outOfOrder, t, 0, Long.MAX_VALUE).decision().remaining())
                        .as("run %d at +%d ns", run, t - now)
                        .isLessThanOrEqualTo(policy.apply(inOrder, t, 0, Long.MAX_VALUE).decision().remaining());
            }
        }
    }

    @Test
    void record_noCostOrNegativeAge_throwsIllegalArgument() {
        Policy policy = Policy.of(Algorithm.STEPPED_SLIDING_WINDOW, Limit.of(3, Duration.ofSeconds(10)));
        assertThatThrownBy(() -> policy.record(null, START, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> policy.record(null, START, 1, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void record_beyondTheLimit_isCountedAndTheNextRequestWaitsUntilTheExcessHasLeft() {
        Policy twoPerSecond = Policy.of(Algorithm.SLIDING_WINDOW_LOG, Limit.of(2, Duration.ofSeconds(1)));
        long[][] state = null;
        for (int i = 0; i < 4; i++) {
            state = twoPerSecond.record(state, START + i * 100 * MILLI, 1, 0).state();
        }
        long now = START + 300 * MILLI;

        Decision next = twoPerSecond.apply(state, now, 1, 0).decision();
        // Four held, two allowed: one more fits once three have left, the third at 1.2 s.
        assertThat(next.allowed()).isFalse();
        assertThat(next.remaining()).isZero();
        assertThat(next.retryAfterNanos()).isEqualTo(900 * MILLI);
        assertThat(next.nextPermitNanos()).isEqualTo(900 * MILLI);
        assertThat(twoPerSecond.apply(state, now, 0, 0).decision().allowed()).as("a cost of 0 only evaluates").isTrue();
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_LOG", "SLIDING_WINDOW_COUNTER",
        "STEPPED_SLIDING_WINDOW"})
    void record_mixedWithGrantsBeyondTheLimit_nextPermitIsTheFirstInstantRemainingGrows(Algorithm algorithm) {
        Random random = new Random(90_210L + algorithm.id());
        for (int run = 0; run < 100; run++) {
            int permits = 1 + random.nextInt(6);
            long period = (1 + random.nextInt(5_000)) * MILLI;
            Policy policy = Policy.of(algorithm, Limit.of(permits, Duration.ofNanos(period)));
            long[][] state = null;
            long now = START + random.nextInt(1_000_000);
            for (int i = 0; i < 60; i++) {
                now += random.nextInt(3) == 0 ? 0 : (long) (random.nextDouble() * period / 2);
                Transition transition = random.nextBoolean()
                        ? policy.record(state, now, 1 + random.nextInt(3), (long) (random.nextDouble() * period))
                        : policy.apply(state, now, random.nextInt(permits + 1), 0);
                state = transition.state();
                Decision decision = policy.apply(state, now, 0, 0).decision();
                String context = String.format("run %d, step %d: %s", run, i, decision);
                long next = decision.nextPermitNanos();
                if (next == 0) {
                    assertThat(decision.remaining()).as(context).isEqualTo(permits);
                } else {
                    assertThat(remaining(policy, state, now + next - 1)).as(context).isEqualTo(decision.remaining());
                    assertThat(remaining(policy, state, now + next)).as(context).isGreaterThan(decision.remaining());
                }
                Decision one = policy.apply(state, now, 1, 0).decision();
                if (!one.allowed()) {
                    assertThat(one.retryAfterNanos()).as(context).isEqualTo(next);
                }
            }
        }
    }

    @Test
    void record_floodOfPastRequestsOnTheSlidingLog_keepsAtMostPermitsEntriesAndReleasesNothingEarly() {
        long period = SECOND;
        Policy fivePerSecond = Policy.of(Algorithm.SLIDING_WINDOW_LOG, Limit.of(5, Duration.ofNanos(period)));
        Random random = new Random(5L);
        List<Made> made = new ArrayList<>();
        long[][] state = null;
        long now = START;
        for (int i = 0; i < 1_000; i++) {
            now += random.nextInt(1_000_000);
            long age = random.nextInt((int) period);
            state = fivePerSecond.record(state, now, 1, age).state();
            made.add(new Made(now - age, 1));
            assertThat(state[0].length / 2).isLessThanOrEqualTo(5);
        }
        for (long t = now; t < now + 2 * period; t += period / 100) {
            long reference = reference(Algorithm.SLIDING_WINDOW_LOG, period, made, t);
            assertThat(fivePerSecond.apply(state, t, 0, 0).decision().remaining())
                    .isLessThanOrEqualTo(Math.max(0, 5 - reference));
        }
    }

    private static long remaining(Policy policy, long[][] state, long at) {
        return policy.apply(state, at, 0, 0).decision().remaining();
    }
}
