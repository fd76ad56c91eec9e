package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RecentCountTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void lastMinute_countsTheSixtySecondsUpToNow_andForgetsOlderEvents() {
        RecentCount count = new RecentCount();
        count.increment(0);
        count.increment(30 * SECOND);
        count.increment(30 * SECOND + 5);

        assertThat(count.lastMinute(30 * SECOND)).isEqualTo(3);
        assertThat(count.lastMinute(59 * SECOND + SECOND - 1)).isEqualTo(3);
        assertThat(count.lastMinute(60 * SECOND)).isEqualTo(2);
        assertThat(count.lastMinute(90 * SECOND)).isZero();
    }

    @Test
    void increment_inABucketLastUsedAMinuteAgo_startsItAfresh() {
        RecentCount count = new RecentCount();
        count.increment(5 * SECOND);
        count.increment(65 * SECOND);

        assertThat(count.lastMinute(65 * SECOND)).isEqualTo(1);
    }

    @Test
    void increment_fromManyThreadsAcrossSecondBoundaries_losesNoEvent() throws Exception {
        RecentCount count = new RecentCount();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        for (int t = 0; t < 8; t++) {
            threads.execute(() -> {
                for (int i = 0; i < 100_000; i++) {
                    count.increment(i / 10_000 * SECOND);
                }
            });
        }
        threads.shutdown();
        assertThat(threads.awaitTermination(1, TimeUnit.MINUTES)).isTrue();

        assertThat(count.lastMinute(9 * SECOND)).isEqualTo(800_000);
    }

    @Test
    void lastMinute_beforeAnyEvent_isZero_evenFarFromTheEpoch() {
        RecentCount count = new RecentCount();
        long farAway = 400L * 24 * 3600 * SECOND;
        assertThat(count.lastMinute(farAway)).isZero();
        count.increment(farAway);
        assertThat(count.lastMinute(farAway + 10 * SECOND)).isEqualTo(1);
    }
}
