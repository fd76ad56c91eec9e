package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The store contract for the compare-and-set store on three members, so most keys are owned by a member other than
 * the caller; and one hot key shared by callers on every member.
 */
class CompareAndSetThreeMemberContractTest extends CompareAndSetContract {

    private static final int THREADS_PER_MEMBER = 8;
    private static final int ATTEMPTS_PER_THREAD = 10;

    CompareAndSetThreeMemberContractTest() {
        super(3);
    }

    /** The test's clock never moves, so nothing refills: exactly the capacity may pass, whatever the algorithm. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void apply_eightThreadsOnEachOfThreeMembers_admitExactlyTheCapacity(Algorithm algorithm) throws Exception {
        Policy policy = Policy.of(algorithm, TEN_PER_MINUTE);
        int threads = THREADS_PER_MEMBER * members.size();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> admitted = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                CompareAndSetCounterStore caller = storeOn(t % members.size(), time);
                admitted.add(pool.submit(() -> {
                    start.await();
                    int granted = 0;
                    for (int i = 0; i < ATTEMPTS_PER_THREAD; i++) {
                        if (caller.apply("hot", policy, 1, Long.MAX_VALUE).allowed()) {
                            granted++;
                        }
                    }
                    return granted;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> future : admitted) {
                total += future.get(120, TimeUnit.SECONDS);
            }
            assertThat(total).as("admitted by %d threads on %d members x %d attempts", THREADS_PER_MEMBER,
                    members.size(), ATTEMPTS_PER_THREAD).isEqualTo(10);
            assertThat(store.peek("hot", policy, 0).remaining()).isZero();
        } finally {
            pool.shutdownNow();
        }
    }
}
