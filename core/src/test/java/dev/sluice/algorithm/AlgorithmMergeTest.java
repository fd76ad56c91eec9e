package dev.sluice.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AlgorithmMergeTest {

    private static final long START = 1_767_225_600_000_000_000L;
    private static final long SECOND = 1_000_000_000L;

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void merge_divergedCopies_grantsNothingEitherCopyWouldReject(Algorithm algorithm) {
        Policy policy = Policy.of(algorithm, Limit.of(10, Duration.ofMinutes(1)).named("minute"),
                Limit.of(25, Duration.ofHours(1)).named("hour"));
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            long now = START + random.nextInt(120) * SECOND;
            long[][] ancestor = grant(policy, null, now, random.nextInt(8), random);
            long[][] a = grant(policy, ancestor, now, random.nextInt(12), random);
            long[][] b = grant(policy, ancestor, now + random.nextInt(5) * SECOND, random.nextInt(12), random);
            long[][] merged = algorithm.merge(a, b);

            for (long later = now + 30 * SECOND; later < now + 200 * SECOND; later += 7 * SECOND + 333) {
                for (long cost = 1; cost <= 10; cost++) {
                    for (long maxDelay : new long[] {0, Long.MAX_VALUE}) {
                        Decision fromA = policy.apply(a, later, cost, maxDelay).decision();
                        Decision fromB = policy.apply(b, later, cost, maxDelay).decision();
                        Decision fromMerged = policy.apply(merged, later, cost, maxDelay).decision();
                        if (!fromA.allowed() || !fromB.allowed()) {
                            assertThat(fromMerged.allowed()).as("round %d at +%d ns, cost %d", round,
                                    later - now, cost).isFalse();
                        }
                    }
                }
                for (int i = 0; i < policy.limits().size(); i++) {
                    Policy single = Policy.of(algorithm, policy.limits().get(i));
                    long remainingA = remaining(single, a, i, later);
                    long remainingB = remaining(single, b, i, later);
                    assertThat(remaining(single, merged, i, later)).as("limit %d", i)
                            .isLessThanOrEqualTo(Math.min(remainingA, remainingB));
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void merge_withAFreshKey_keepsTheConsumedState(Algorithm algorithm) {
        Policy policy = Policy.of(algorithm, Limit.of(10, Duration.ofMinutes(1)));
        long[][] consumed = policy.apply(null, START, 4, Long.MAX_VALUE).state();

        assertThat(algorithm.merge(consumed, null)).isSameAs(consumed);
        assertThat(algorithm.merge(null, consumed)).isSameAs(consumed);
        assertThat(policy.apply(algorithm.merge(consumed, consumed), START, 0, 0).decision().remaining())
                .isEqualTo(6);
    }

    /** The permits left of the {@code index}th limit alone. */
    private static long remaining(Policy single, long[][] state, int index, long now) {
        long[][] limitState = state == null ? null : new long[][] {state[index]};
        return single.apply(limitState, now, 0, 0).decision().remaining();
    }

    /** Grants up to {@code attempts} permits at increasing times from {@code now}, returning the state after. */
    private static long[][] grant(Policy policy, long[][] state, long now, int attempts, Random random) {
        long[][] current = state;
        long time = now;
        for (int i = 0; i < attempts; i++) {
            time += random.nextInt(3_000) * 1_000_000L;
            current = policy.apply(current, time, 1 + random.nextInt(2), Long.MAX_VALUE).state();
        }
        return current;
    }
}
