package dev.sluice.hazelcast.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link OverAdmission}: what the owner publishes is how far hits took a key past its limits, counted once per span (a
 * window's; a bucket's until it is full again), not every merge that finds the key past them.
 */
class OverAdmissionTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long START = 1_767_225_600L * SECOND;

    /** The owner's key: its counters and what it has measured, merged hit by hit as {@link SyncProcessor} does. */
    private static final class Key {
        private final Policy policy;
        private long[][] state;
        private OverAdmission measured = OverAdmission.NONE;
        private long published;

        Key(Policy policy) {
            this.policy = policy;
        }

        /** Merges {@code hits} of one permit, made at {@code now}. */
        Key merge(long now, int hits) {
            long[][] before = state;
            for (int i = 0; i < hits; i++) {
                state = policy.record(state, now, 1, 0).state();
            }
            OverAdmission.Measured merged = measured.measure(policy, before, state, now);
            published += merged.permits();
            measured = merged.after();
            return this;
        }

        /** Takes what the algorithm grants at {@code now}, as a node deciding exactly would. */
        Key grantAll(long now) {
            while (policy.apply(state, now, 1, 0).decision().allowed()) {
                state = policy.apply(state, now, 1, 0).state();
            }
            return this;
        }
    }

    @Test
    void measure_fixedWindowMergedPastItsLimitTwice_publishesTheWindowsExcessOnce() {
        Key key = new Key(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(10, Duration.ofSeconds(1))));

        key.merge(START, 12).merge(START + SECOND / 2, 1);

        assertThat(key.published).isEqualTo(3);
    }

    @Test
    void measure_windowAfterWindowPastTheLimit_publishesEachWindowsExcess() {
        Key key = new Key(Policy.of(Algorithm.SLIDING_WINDOW_LOG, Limit.of(10, Duration.ofSeconds(1))));

        for (int window = 0; window < 5; window++) {
            key.merge(START + window * SECOND, 12);
        }

        assertThat(key.published).isEqualTo(5 * 2);
    }

    @Test
    void measure_tokenBucketKeptAtItsLimit_publishesItsDeepestDebtOnce() {
        Key key = new Key(Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofSeconds(1))));
        key.grantAll(START);

        // Every 100 ms one token refills, and two nodes each admit it: one permit of debt, paid back by the next.
        for (int tick = 1; tick <= 50; tick++) {
            key.merge(START + tick * SECOND / 10, tick % 2 == 1 ? 2 : 0);
        }

        assertThat(key.published).isEqualTo(1);
    }

    @Test
    void measure_tokenBucketBackToFullBetweenBursts_publishesEachBurstsDebt() {
        Key key = new Key(Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofSeconds(1))));

        key.merge(START, 13).merge(START + 5 * SECOND, 14);

        assertThat(key.published).isEqualTo(3 + 4);
    }

    @Test
    void measure_gcraPastItsCapacity_publishesTheWholeIntervalsBeyond() {
        Key key = new Key(Policy.of(Algorithm.GCRA, Limit.of(10, Duration.ofSeconds(1))));

        key.merge(START, 12).merge(START + SECOND / 10, 1);

        assertThat(key.published).isEqualTo(2);
    }

    @Test
    void measure_twoLimitsPastByOneHit_publishesItOnce() {
        Key key = new Key(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(10, Duration.ofSeconds(1)),
                Limit.of(10, Duration.ofMinutes(1))));

        key.merge(START, 11);

        assertThat(key.published).isEqualTo(1);
    }

    @Test
    void measure_hitsWithinTheLimit_publishNothing() {
        Key key = new Key(Policy.of(Algorithm.SLIDING_WINDOW_COUNTER, Limit.of(10, Duration.ofSeconds(1))));

        key.merge(START, 10).merge(START + 2 * SECOND, 10);

        assertThat(key.published).isZero();
    }
}
