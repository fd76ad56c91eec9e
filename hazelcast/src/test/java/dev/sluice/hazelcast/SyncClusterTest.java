package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The synchronised mode on a real three-member cluster (TCP-IP on loopback, multicast off) on one frozen manual clock,
 * so that no view goes stale and no window moves during a test: a node decides from its view with no call, its hits
 * reach the owner in one message per member and every sending node adopts the owner's state, no hit is lost, a node
 * alone never admits more than the limit, and three nodes admit at most the stated bound over it
 * ({@code docs/design/synchronised.md}: with time frozen, at most {@code (n - 1) * C} over the exact {@code C}). The
 * interval is 1 s so that the tests' own {@code flush()} calls, not the flusher, decide when hits travel. One cluster
 * serves every test; each uses a key of its own.
 */
@Tag("cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SyncClusterTest {

    private static final int MEMBERS = 3;
    private static final int THREADS_PER_MEMBER = 8;
    private static final StoreOptions SYNCING = StoreOptions.builder().syncInterval(Duration.ofSeconds(1)).build();

    private final ManualTimeSource time = new ManualTimeSource();
    private List<HazelcastCounterStore> members = List.of();

    @BeforeAll
    void startCluster() {
        members = ClusterSupport.startCluster(MEMBERS, SYNCING, time);
        ClusterSupport.await(() -> members.stream().allMatch(m -> m.clusterWireVersion() >= 6),
                Duration.ofSeconds(60), "every member reads wire version 6");
    }

    @AfterAll
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    private static Policy synced(Algorithm algorithm, long permits) {
        return Policy.of(algorithm, Limit.of(permits, Duration.ofSeconds(10))).synchronised();
    }

    @Test
    void apply_syncedKeyWithAView_decidesLocallyAndTheOwnerCountsAfterTheFlush() {
        HazelcastCounterStore node = members.get(0);
        HazelcastCounterStore owner = members.get(1);
        String key = ClusterSupport.keyOwnedBy(owner.instance(), "local-");
        Policy policy = synced(Algorithm.FIXED_WINDOW, 100);
        long localBefore = node.syncs().localDecisions();

        for (int i = 0; i < 10; i++) {
            assertThat(node.apply(key, policy, 1, 0).remaining()).isEqualTo(100 - 1 - i);
        }
        assertThat(node.syncs().localDecisions() - localBefore).isEqualTo(9);
        assertThat(node.syncs().hitsWaiting()).isGreaterThanOrEqualTo(9);

        long messagesBefore = node.syncs().messagesSent();
        node.syncs().flush();

        // one message to the one owner (the flusher may have sent one more meanwhile)
        assertThat(node.syncs().messagesSent() - messagesBefore).isBetween(1L, 2L);
        assertThat(owner.peek(key, policy, 0).remaining()).isEqualTo(90);
        assertThat(node.syncs().hitsWaiting()).isZero();
    }

    @Test
    void flush_hitsFromEveryNode_reachTheOwnerAndEachSenderAdoptsIt() {
        String key = ClusterSupport.keyOwnedBy(members.get(2).instance(), "adopt-");
        Policy policy = synced(Algorithm.SLIDING_WINDOW_COUNTER, 1_000);
        for (HazelcastCounterStore member : members) {
            for (int i = 0; i < 5; i++) {
                assertThat(member.apply(key, policy, 1, 0).allowed()).isTrue();
            }
        }
        for (HazelcastCounterStore member : members) {
            member.syncs().flush();
        }
        assertThat(members.get(2).peek(key, policy, 0).remaining()).isEqualTo(1_000 - 15);

        // The last node to flush adopted every hit; another adopts them with the answer to its next message.
        assertThat(members.get(2).apply(key, policy, 1, 0).remaining()).isEqualTo(1_000 - 16);
        members.get(2).syncs().flush();
        // members.get(0) knows at least its own 5 and 1; the flusher may have refreshed it meanwhile
        assertThat(members.get(0).apply(key, policy, 1, 0).remaining()).isBetween(1_000L - 17, 1_000L - 6);
        members.get(0).syncs().flush();
        assertThat(members.get(0).apply(key, policy, 1, 0).remaining()).isEqualTo(1_000 - 18);
    }

    @Test
    void apply_eightThreadsOnThreeNodesBelowTheLimit_everyHitReachesTheOwner() throws Exception {
        String key = ClusterSupport.keyOwnedBy(members.get(1).instance(), "nolost-");
        Policy policy = synced(Algorithm.STEPPED_SLIDING_WINDOW, 100_000);

        int admitted = ClusterSupport.admitted(members, THREADS_PER_MEMBER, 40, key, policy, 0);
        for (HazelcastCounterStore member : members) {
            member.syncs().flush();
        }

        assertThat(admitted).isEqualTo(MEMBERS * THREADS_PER_MEMBER * 40);
        assertThat(members.get(0).peek(key, policy, 0).remaining()).isEqualTo(100_000 - admitted);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_LOG", "SLIDING_WINDOW_COUNTER",
            "STEPPED_SLIDING_WINDOW"})
    void apply_oneNodeAlone_admitsExactlyTheLimit(Algorithm algorithm) throws Exception {
        String key = ClusterSupport.keyOwnedBy(members.get(2).instance(), "alone-" + algorithm + "-");
        Policy policy = synced(algorithm, 50);

        int admitted = ClusterSupport.admitted(members.subList(0, 1), THREADS_PER_MEMBER, 20, key, policy, 0);

        assertThat(admitted).isEqualTo(50);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_LOG", "SLIDING_WINDOW_COUNTER",
            "STEPPED_SLIDING_WINDOW"})
    void apply_eightThreadsOnEachOfThreeNodes_admitsAtMostTheBoundAndEachNodeAtMostTheLimit(Algorithm algorithm)
            throws Exception {
        String key = ClusterSupport.keyOwnedBy(members.get(0).instance(), "bound-" + algorithm + "-");
        long limit = 200;
        Policy policy = synced(algorithm, limit);

        int[] perNode = admittedPerNode(key, policy, 40);
        int admitted = perNode[0] + perNode[1] + perNode[2];
        long bound = limit + (MEMBERS - 1) * limit;

        System.out.printf("SYNCED %s: limit=%d admitted=%d per node=%d/%d/%d bound=%d%n", algorithm, limit, admitted,
                perNode[0], perNode[1], perNode[2], bound);
        assertThat(admitted).isGreaterThanOrEqualTo((int) limit).isLessThanOrEqualTo((int) bound);
        for (int node : perNode) {
            assertThat(node).isLessThanOrEqualTo((int) limit);
        }
        for (HazelcastCounterStore member : members) {
            member.syncs().flush();
        }
        // After every node's hits reached the owner and each adopted, no node admits more in this window.
        members.get(0).syncs().flush();
        for (HazelcastCounterStore member : members) {
            assertThat(member.apply(key, policy, 1, 0).allowed()).isFalse();
        }
    }

    @Test
    void close_clientWithWaitingHits_sendsThemToTheOwner() {
        String key = ClusterSupport.keyOwnedBy(members.get(1).instance(), "close-");
        Policy policy = synced(Algorithm.FIXED_WINDOW, 100);
        HazelcastCounterStore client = HazelcastCounterStore.connectClient(ClusterSupport.client(members.get(0)
                .instance().getConfig().getClusterName(), ClusterSupport.address(members.get(0))).store(SYNCING)
                .build());
        try {
            ClusterSupport.await(() -> client.clusterWireVersion() >= 6, Duration.ofSeconds(30),
                    "the client to find that every member reads wire version 6");
            for (int i = 0; i < 7; i++) {
                assertThat(client.apply(key, policy, 1, 0).allowed()).isTrue();
            }
            assertThat(client.syncs().hitsWaiting()).isEqualTo(6);
            assertThat(client.health().syncHitsWaiting()).isEqualTo(6);
        } finally {
            client.close();
        }

        assertThat(members.get(1).peek(key, policy, 0).remaining()).isEqualTo(100 - 7);
    }

    @Test
    void flush_ownerKilledWithHitsWaiting_losesNoMergedHitAndSendsTheWaitingOnesToTheNewOwner() {
        List<HazelcastCounterStore> cluster = ClusterSupport.startCluster(2, SYNCING, time);
        try {
            HazelcastCounterStore node = cluster.get(0);
            HazelcastCounterStore doomed = cluster.get(1);
            String key = ClusterSupport.keyOwnedBy(doomed.instance(), "killed-owner-");
            Policy policy = synced(Algorithm.FIXED_WINDOW, 1_000);
            ClusterSupport.await(() -> node.clusterWireVersion() >= 6, Duration.ofSeconds(30), "wire version 6");
            for (int i = 0; i < 6; i++) {
                assertThat(node.apply(key, policy, 1, 0).allowed()).isTrue();
            }
            node.syncs().flush();
            assertThat(node.syncs().hitsWaiting()).isZero();
            for (int i = 0; i < 3; i++) {
                assertThat(node.apply(key, policy, 1, 0).allowed()).isTrue();
            }

            doomed.instance().getLifecycleService().terminate();
            ClusterSupport.awaitClusterSize(node.instance(), 1);
            ClusterSupport.await(() -> {
                node.syncs().flush();
                return node.syncs().hitsWaiting() == 0;
            }, Duration.ofSeconds(30), "the waiting hits to reach the new owner");

            // the first request decided on the owner, 5 merged before the kill (kept by the backup), 3 after it
            assertThat(node.peek(key, policy, 0).remaining()).isEqualTo(1_000 - 9);
        } finally {
            ClusterSupport.closeAll(cluster);
        }
    }

    /** Eight threads on each member, started together, each trying {@code attempts} times; admissions per member. */
    private int[] admittedPerNode(String key, Policy policy, int attempts) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS_PER_MEMBER * MEMBERS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<List<Future<Integer>>> byNode = new ArrayList<>();
            for (HazelcastCounterStore member : members) {
                List<Future<Integer>> threads = new ArrayList<>();
                for (int t = 0; t < THREADS_PER_MEMBER; t++) {
                    threads.add(pool.submit(() -> {
                        start.await();
                        int granted = 0;
                        for (int i = 0; i < attempts; i++) {
                            if (member.apply(key, policy, 1, 0).allowed()) {
                                granted++;
                            }
                        }
                        return granted;
                    }));
                }
                byNode.add(threads);
            }
            start.countDown();
            int[] admitted = new int[members.size()];
            for (int node = 0; node < admitted.length; node++) {
                for (Future<Integer> thread : byNode.get(node)) {
                    admitted[node] += thread.get(120, TimeUnit.SECONDS);
                }
            }
            return admitted;
        } finally {
            pool.shutdownNow();
        }
    }
}
