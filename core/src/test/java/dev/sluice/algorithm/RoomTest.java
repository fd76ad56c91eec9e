package dev.sluice.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Limit;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Policy#room}: the permits a limit has left, below zero by as many as recorded requests took it past the
 * limit; where it is positive, what a look ({@link Policy#apply} of cost 0) reports as remaining.
 */
class RoomTest {

    private static final long START = Timeline.START;
    private static final long MILLI = 1_000_000L;

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void room_freshKey_isTheCapacityOfEveryLimit(Algorithm algorithm) {
        Policy policy = Policy.of(algorithm, Limit.of(10, Duration.ofSeconds(1)), Limit.of(50, Duration.ofMinutes(1)));

        assertThat(policy.room(null, START)).containsExactly(10, 50);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void room_requestsRecordedPastTheLimit_isBelowZeroByAsMany(Algorithm algorithm) {
        Policy policy = Policy.of(algorithm, Limit.of(10, Duration.ofSeconds(1)), Limit.of(50, Duration.ofMinutes(1)));

        long[][] state = policy.record(null, START, 13, 0).state();

        assertThat(policy.room(state, START)).containsExactly(-3, 37);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void room_randomGrantsAndRecords_isTheRemainingOfALookWhereverThatIsAboveZero(Algorithm algorithm) {
        Random random = new Random(3_301L + algorithm.id());
        for (int run = 0; run < 30; run++) {
            long period = (100 + random.nextInt(10_000)) * MILLI;
            Policy policy = Policy.of(algorithm, Limit.of(1 + random.nextInt(40), Duration.ofNanos(period)));
            long[][] state = null;
            long now = START + random.nextInt(1_000_000_000);
            for (int i = 0; i < 200; i++) {
                now += (long) (random.nextDouble() * period / 8);
                state = random.nextInt(3) == 0
                        ? policy.record(state, now, 1 + random.nextInt(3), (long) (random.nextDouble() * period / 4))
                                .state()
                        : policy.apply(state, now, 1 + random.nextInt(3), 0).state();
                long room = policy.room(state, now)[0];
                long remaining = policy.apply(state, now, 0, 0).decision().remaining();
                assertThat(Math.max(0, room)).as("run %d, step %d", run, i).isEqualTo(remaining);
                assertThat(room).as("run %d, step %d: no further than the recorded costs", run, i)
                        .isGreaterThanOrEqualTo(-3L * (i + 1));
            }
        }
    }

    @Test
    void room_tokenBucketInDebt_risesWithTheRefillUntilThePermitsComeBack() {
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofSeconds(1)));
        long[][] state = policy.record(null, START, 15, 0).state();

        assertThat(policy.room(state, START)[0]).isEqualTo(-5);
        assertThat(policy.room(state, START + 300 * MILLI)[0]).isEqualTo(-2);
        assertThat(policy.room(state, START + 800 * MILLI)[0]).isEqualTo(3);
    }
}
