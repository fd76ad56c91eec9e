package dev.sluice.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Decision#nextPermitNanos()} of every algorithm against what the algorithm itself later says: along random
 * timelines, a key's remaining permits are unchanged 1 ns before the next-permit time and have grown at it.
 */
class NextPermitTest {

    private static final long START = Timeline.START;

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void nextPermit_randomTimelines_isTheFirstInstantTheRemainingPermitsGrow(Algorithm algorithm) {
        Random random = new Random(20261123L + algorithm.id());
        for (int run = 0; run < 100; run++) {
            int permits = 1 + random.nextInt(8);
            long period = Duration.ofMillis(1 + random.nextInt(5_000)).toNanos();
            boolean windowed = algorithm != Algorithm.TOKEN_BUCKET && algorithm != Algorithm.GCRA
                    && algorithm != Algorithm.LEAKY_BUCKET;
            long capacity = windowed ? permits : permits + random.nextInt(4);
            Policy policy = Policy.of(algorithm, Limit.of(permits, Duration.ofNanos(period)).withCapacity(capacity));
            long[][] state = null;
            long now = START + random.nextInt(1_000_000);
            for (int i = 0; i < 60; i++) {
                now += random.nextInt(3) == 0 ? 0 : (long) (random.nextDouble() * period);
                long cost = random.nextInt(10) == 0 ? capacity + 1 : random.nextInt((int) capacity + 1);
                Transition transition = policy.apply(state, now, cost, Long.MAX_VALUE);
                state = transition.state();
                Decision decision = transition.decision();
                String context = String.format("run %d, request %d of cost %d: %s", run, i, cost, decision);

                long next = decision.nextPermitNanos();
                if (next == 0) {
                    assertThat(decision.remaining()).as(context).isEqualTo(capacity);
                } else {
                    assertThat(remaining(policy, state, now + next - 1)).as(context).isEqualTo(decision.remaining());
                    assertThat(remaining(policy, state, now + next)).as(context).isGreaterThan(decision.remaining());
                }
                if (!decision.allowed() && cost == 1) {
                    assertThat(next).as(context).isEqualTo(decision.retryAfterNanos());
                }
            }
        }
    }

    private static long remaining(Policy policy, long[][] state, long at) {
        return policy.apply(state, at, 0, Long.MAX_VALUE).decision().remaining();
    }
}
