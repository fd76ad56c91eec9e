package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Lease;
import dev.sluice.internal.state.Transition;
import dev.sluice.store.Command;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Leased slices on a real three-member cluster (TCP-IP on loopback, multicast off) on one manual clock: eight threads
 * on each member share one hot key, and the admissions stay within the stated bounds (see {@code Slices} and
 * {@code Lease}): for the window algorithms never more than the exact count and at most {@code members * (s + s / 2)}
 * fewer, s the largest slice; for the token bucket and GCRA, never more in any interval than the algorithm's envelope
 * of that interval plus the lease lifetime. Each node holds at most {@code s + s / 2} permits of a key (a slice, and
 * the next one taken when it is half used). One cluster serves every test; each uses a key of its own.
 */
@Tag("cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeasingClusterTest {

    private static final int MEMBERS = 3;
    private static final int THREADS_PER_MEMBER = 8;
    private static final int MAX_SLICE = 16;
    private static final Duration LIFETIME = Duration.ofMillis(10);
    private static final StoreOptions LEASING = StoreOptions.builder().leasing(true).maxSlice(MAX_SLICE)
            .leaseLifetime(LIFETIME).build();

    private final ManualTimeSource time = new ManualTimeSource();
    private List<HazelcastCounterStore> members = List.of();

    @BeforeAll
    void startCluster() {
        members = ClusterSupport.startCluster(MEMBERS, LEASING, time);
    }

    @AfterAll
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_COUNTER", "STEPPED_SLIDING_WINDOW"})
    void window_hotKeyFromEightThreadsOnEachOfThreeMembers_admitsTheLimitLessAtMostTheHeldSlices(Algorithm algorithm)
            throws Exception {
        Policy policy = Policy.of(algorithm, Limit.of(200, Duration.ofSeconds(10))).leasing();
        long slicesBefore = slicesTaken();

        int admitted = ClusterSupport.admitted(members, THREADS_PER_MEMBER, 40, "window-" + algorithm, policy, 0);

        long held = held(200);
        System.out.printf("LEASED %s: limit=200 admitted=%d slices=%d bound=[%d, 200]%n", algorithm, admitted,
                slicesTaken() - slicesBefore, 200 - MEMBERS * held);
        assertThat(admitted).isLessThanOrEqualTo(200).isGreaterThanOrEqualTo((int) (200 - MEMBERS * held));
        assertThat(slicesTaken()).isGreaterThan(slicesBefore);
    }

    /**
     * Twenty phases, the clock frozen in each and moved 4 ms between them (less than the 10 ms lifetime, so slices
     * outlive a phase): in each phase each thread asks 10 times, more than the 40 permits a phase refills.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"TOKEN_BUCKET", "GCRA"})
    void bucket_hotKeyFromEightThreadsOnEachOfThreeMembers_staysWithinTheEnvelopeOfIntervalPlusLifetime(
            Algorithm algorithm) throws Exception {
        Limit limit = Limit.of(10_000, Duration.ofSeconds(1), 50, "burst");
        Policy policy = Policy.of(algorithm, limit).leasing();
        int phases = 20;
        int attempts = 10;
        long step = Duration.ofMillis(4).toNanos();
        long slicesBefore = slicesTaken();

        long[] admitted = phased(policy, "bucket-" + algorithm, phases, attempts, step);

        long exact = exactPhased(Policy.of(algorithm, limit), phases, MEMBERS * THREADS_PER_MEMBER * attempts, step);
        long total = 0;
        long largestExcess = Long.MIN_VALUE;
        for (int i = 0; i < phases; i++) {
            long inInterval = 0;
            for (int j = i; j < phases; j++) {
                inInterval += admitted[j];
                long envelope = 50 + ceilRate((j - i) * step, limit);
                long bound = 50 + ceilRate((j - i) * step + LIFETIME.toNanos(), limit);
                largestExcess = Math.max(largestExcess, inInterval - envelope);
                assertThat(inInterval).as("phases %d to %d", i, j).isLessThanOrEqualTo(bound);
            }
            total += admitted[i];
        }
        System.out.printf("LEASED %s: exact=%d admitted=%d slices=%d largest excess over the envelope=%d (bound %d)%n",
                algorithm, exact, total, slicesTaken() - slicesBefore, largestExcess,
                ceilRate(LIFETIME.toNanos(), limit));
        assertThat(total).isLessThanOrEqualTo(exact).isGreaterThanOrEqualTo(exact - MEMBERS * held(50));
        assertThat(slicesTaken()).isGreaterThan(slicesBefore);
    }

    /**
     * What {@code remaining} means under a slice (see {@code Slices}): when this node's grants are the only ones,
     * a leased decision says exactly what the unleased one says, request by request, down to the last permit.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_COUNTER", "STEPPED_SLIDING_WINDOW",
            "TOKEN_BUCKET", "GCRA"})
    void oneNodeAlone_leasedDecisions_sayWhatUnleasedOnesSay(Algorithm algorithm) {
        Limit limit = Limit.of(256, Duration.ofSeconds(10));
        Policy exact = Policy.of(algorithm, limit);
        HazelcastCounterStore node = members.get(0);
        String key = ClusterSupport.keyOwnedBy(members.get(1), "alone-" + algorithm + "-");
        long fromSlicesBefore = node.leases().grantedFromSlices();

        long[][] state = null;
        for (int i = 0; i < 300; i++) {
            Transition unleased = exact.apply(state, time.nanos(), 1, 0);
            state = unleased.state();
            Decision leased = node.execute(key, Command.decide(exact.leasing(), 1, 0));

            assertThat(leased.allowed()).as("request %d", i).isEqualTo(unleased.decision().allowed());
            assertThat(leased.remaining()).as("request %d", i).isEqualTo(unleased.decision().remaining());
        }
        assertThat(node.leases().grantedFromSlices() - fromSlicesBefore).isGreaterThan(100);
    }

    @Test
    void fixedWindow_memberKilledWhileHoldingSlices_losesOnlyWhatItHeld() throws Exception {
        List<HazelcastCounterStore> cluster = ClusterSupport.startCluster(MEMBERS, LEASING, time);
        try {
            Policy policy = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(300, Duration.ofHours(1))).leasing();
            String key = ClusterSupport.keyOwnedBy(cluster.get(0), "killed-holder-");
            HazelcastCounterStore doomed = cluster.get(2);
            int before = 0;
            for (HazelcastCounterStore member : cluster) {
                for (int i = 0; i < 20; i++) {
                    before += member.execute(key, Command.decide(policy, 1, 0)).allowed() ? 1 : 0;
                }
            }
            ClusterSupport.await(() -> !doomed.leases().taking(), Duration.ofSeconds(10),
                "the slices on their way");
            long held = doomed.leases().heldPermits();
            assertThat(held).isPositive();

            doomed.instance().getLifecycleService().terminate();
            ClusterSupport.awaitClusterSize(cluster.get(0).instance(), MEMBERS - 1);
            int after = ClusterSupport.admitted(cluster.subList(0, 2), THREADS_PER_MEMBER, 40, key, policy, 0);

            System.out.printf("LEASED killed holder: limit=300 held=%d admitted=%d%n", held, before + after);
            assertThat(before + after).isLessThanOrEqualTo((int) (300 - held))
                    .isGreaterThanOrEqualTo((int) (300 - held - 2 * held(300)));
        } finally {
            ClusterSupport.closeAll(cluster);
        }
    }

    @Test
    void close_memberHoldingWindowSlices_givesTheirUnusedPermitsBack() {
        Policy policy = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(300, Duration.ofHours(1))).leasing();
        List<HazelcastCounterStore> cluster = ClusterSupport.startCluster(2, LEASING, time);
        try {
            String key = ClusterSupport.keyOwnedBy(cluster.get(0), "closed-holder-");
            HazelcastCounterStore leaving = cluster.get(1);
            for (int i = 0; i < 20; i++) {
                leaving.execute(key, Command.decide(policy, 1, 0));
            }
            ClusterSupport.await(() -> !leaving.leases().taking(), Duration.ofSeconds(10),
                "the slices on their way");
            long held = leaving.leases().heldPermits();
            assertThat(held).isPositive();
            assertThat(cluster.get(0).execute(key, Command.peek(policy, 0)).remaining()).isEqualTo(300 - 20 - held);
            assertThat(leaving.services().health().cluster().leasing().permitsHeld()).isEqualTo(held);
            assertThat(leaving.services().health().cluster().leasing().grants())
                    .isEqualTo(leaving.leases().grantedFromSlices()).isPositive();

            leaving.close();

            assertThat(cluster.get(0).execute(key, Command.peek(policy, 0)).remaining()).isEqualTo(300 - 20);
        } finally {
            ClusterSupport.closeAll(cluster);
        }
    }

    /** The most permits one node holds of a key of this capacity: a slice and half of one. */
    private static long held(long capacity) {
        long largestSlice = Math.min(MAX_SLICE, capacity / Lease.SLICE_SHARE);
        return largestSlice + largestSlice / 2;
    }

    private long slicesTaken() {
        return members.stream().mapToLong(member -> member.leases().slicesTaken()).sum();
    }

    /** Admissions per phase: every thread asks {@code attempts} times per phase; the clock moves between phases. */
    private long[] phased(Policy policy, String key, int phases, int attempts, long step) throws Exception {
        AtomicLongArray admitted = new AtomicLongArray(phases);
        int threads = MEMBERS * THREADS_PER_MEMBER;
        CyclicBarrier phaseEnd = new CyclicBarrier(threads, () -> time.advanceNanos(step));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (HazelcastCounterStore member : members) {
                for (int t = 0; t < THREADS_PER_MEMBER; t++) {
                    running.add(pool.submit(() -> {
                        for (int phase = 0; phase < phases; phase++) {
                            for (int i = 0; i < attempts; i++) {
                                if (member.execute(key, Command.decide(policy, 1, 0)).allowed()) {
                                    admitted.incrementAndGet(phase);
                                }
                            }
                            phaseEnd.await(60, TimeUnit.SECONDS);
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> thread : running) {
                thread.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long[] counts = new long[phases];
        for (int i = 0; i < phases; i++) {
            counts[i] = admitted.get(i);
        }
        return counts;
    }

    /** What the algorithm alone admits of the same phases: {@code requests} at each phase's time. */
    private static long exactPhased(Policy policy, int phases, int requests, long step) {
        long[][] state = null;
        long admitted = 0;
        for (int phase = 0; phase < phases; phase++) {
            for (int i = 0; i < requests; i++) {
                Transition transition = policy.apply(state, phase * step, 1, 0);
                admitted += transition.decision().allowed() ? 1 : 0;
                state = transition.state();
            }
        }
        return admitted;
    }

    /** {@code ceil(nanos * N / P)}: the permits the limit's rate gives in that long. */
    private static long ceilRate(long nanos, Limit limit) {
        return (nanos * limit.permits() + limit.periodNanos() - 1) / limit.periodNanos();
    }
}
