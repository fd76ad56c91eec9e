package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

    /**
     * Seconds a minute apart share one bucket, so every phase moves that bucket to a new second while other threads
     * count in it: the race between resetting a bucket and counting in it, which must lose no event.
     */
    @Test
    void increment_manyThreadsMovingOneBucketToNewSeconds_losesNoEvent() throws Exception {
        RecentCount count = new RecentCount();
        int threads = 8;
        int perPhase = 20_000;
        CyclicBarrier phase = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(pool.submit(() -> {
                for (int k = 1; k <= 5; k++) {
                    phase.await();
                    for (int i = 0; i < perPhase; i++) {
                        count.increment(k * 60 * SECOND);
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(1, TimeUnit.MINUTES);
        }
        pool.shutdown();

        assertThat(count.lastMinute(5 * 60 * SECOND)).isEqualTo((long) threads * perPhase);
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
