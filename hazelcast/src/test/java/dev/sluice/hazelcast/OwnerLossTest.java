package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What happens to a key's state when the member that owns it leaves: each test starts its own cluster. */
@Tag("cluster")
class OwnerLossTest {

    private static final Policy TEN_PER_MINUTE = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofMinutes(1)));

    private List<HazelcastCounterStore> members = List.of();

    @AfterEach
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    @Test
    void decide_ownerShutDownUnderLoad_keepsConsumedState() throws Exception {
        assertOwnerLossKeepsState(owner -> owner.instance().shutdown());
    }

    @Test
    void decide_ownerTerminated_keepsConsumedState() throws Exception {
        assertOwnerLossKeepsState(owner -> owner.instance().getLifecycleService().terminate());
    }

    /**
     * Eight threads on each of two members drain 40 synchronised keys whose shards a third member holds, with a budget
     * of 3; when 40% of the permits are taken, that member is terminated. No key admits more than its limit plus the
     * budget of the other deciding member ({@code docs/design/synchronised.md}): every hit the owner had answered was
     * in its synchronous backup, and the hits of a call it never answered are sent again to the new owner.
     */
    @Test
    void decide_ownerOfSynchronisedKeysTerminatedUnderLoad_admitsNoKeyBeyondItsLimitAndTheBudget() throws Exception {
        members = ClusterSupport.startCluster(3, StoreOptions.builder().syncBudget(3).build(), new ManualTimeSource());
        HazelcastCounterStore owner = members.get(0);
        List<HazelcastCounterStore> survivors = members.subList(1, 3);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            keys.add(ClusterSupport.syncedKeyOwnedBy(owner, "synced-" + i + "-"));
        }
        Policy fifty = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(50, Duration.ofMinutes(1))).synchronised();
        AtomicIntegerArray admitted = new AtomicIntegerArray(keys.size());
        AtomicInteger total = new AtomicInteger();

        loadThroughOwnerLoss(survivors, 16, (via, worker, attempt) -> {
            int key = ThreadLocalRandom.current().nextInt(keys.size());
            try {
                if (via.execute(keys.get(key), Command.decide(fifty, 1, 0)).allowed()) {
                    admitted.incrementAndGet(key);
                    total.incrementAndGet();
                }
            } catch (RuntimeException failedWhileTheOwnerLeft) {
                // not admitted
            }
        }, () -> total.get() >= keys.size() * 50 * 4 / 10, "40% of the permits taken",
                () -> owner.instance().getLifecycleService().terminate(), keys.size() * 100);

        for (int k = 0; k < keys.size(); k++) {
            assertThat(admitted.get(k)).as("admitted on key %d", k).isLessThanOrEqualTo(50 + 3);
        }
        assertThat(survivors.stream().mapToLong(member -> member.syncs().localDecisions()).sum()).isPositive();
    }

    /**
     * Members 5 s apart: the key is drained through all of them, then its owner (the slow clock) leaves and a member
     * 5 s ahead takes over. Every algorithm still admits exactly the limit.
     */
    @Test
    void decide_membersWithClocksFiveSecondsApart_admitExactlyTheLimitAcrossOwnershipMoves() {
        ManualTimeSource slow = new ManualTimeSource();
        ManualTimeSource fast = new ManualTimeSource(slow.nanos() + Duration.ofSeconds(5).toNanos());
        members = ClusterSupport.startCluster(3, slow, fast, fast);
        HazelcastCounterStore owner = members.get(0);
        List<HazelcastCounterStore> survivors = members.subList(1, 3);

        List<String> keys = new ArrayList<>();
        int admitted = 0;
        for (Algorithm algorithm : Algorithm.values()) {
            Policy policy = Policy.of(algorithm, Limit.of(10, Duration.ofMinutes(1)));
            String key = ClusterSupport.keyOwnedBy(owner, "skewed-" + algorithm + "-");
            keys.add(key);
            for (int i = 0; i < 30; i++) {
                admitted += members.get(i % 3).execute(key, Command.decide(policy, 1,
                        Long.MAX_VALUE)).allowed() ? 1 : 0;
            }
        }
        assertThat(admitted).isEqualTo(10 * Algorithm.values().length);

        owner.instance().shutdown();
        ClusterSupport.awaitClusterSize(survivors.get(0).instance(), 2);
        for (Algorithm algorithm : Algorithm.values()) {
            Policy policy = Policy.of(algorithm, Limit.of(10, Duration.ofMinutes(1)));
            String key = keys.get(algorithm.ordinal());
            for (HazelcastCounterStore survivor : survivors) {
                assertThat(survivor.execute(key, Command.decide(policy, 1,
                        Long.MAX_VALUE)).allowed()).as("%s after the move", algorithm)
                        .isFalse();
            }
        }
    }

    private void assertOwnerLossKeepsState(Consumer<HazelcastCounterStore> loseMember) throws Exception {
        members = ClusterSupport.startCluster(3, new ManualTimeSource());
        HazelcastCounterStore owner = members.get(0);
        List<HazelcastCounterStore> survivors = members.subList(1, 3);
        String hotKey = ClusterSupport.keyOwnedBy(owner, "owned-");

        AtomicInteger admitted = new AtomicInteger();

        loadThroughOwnerLoss(survivors, 4, (via, worker, attempt) -> {
            via.execute("background-" + worker + "-" + attempt % 50, Command.decide(TEN_PER_MINUTE, 1, 0));
            if (via.execute(hotKey, Command.decide(TEN_PER_MINUTE, 1, 0)).allowed()) {
                admitted.incrementAndGet();
            }
        }, () -> admitted.get() >= 10, "the hot key to be drained", () -> loseMember.accept(owner), 200);
        assertThat(admitted.get()).as("admitted on the hot key before and after its owner left").isEqualTo(10);
        assertThat(survivors.get(0).execute(hotKey, Command.peek(TEN_PER_MINUTE, 0)).remaining()).isZero();
    }

    /** One attempt of a load thread: {@code worker} numbers the thread, {@code attempt} its attempts. */
    @FunctionalInterface
    private interface Attempt {
        void run(HazelcastCounterStore via, int worker, int attempt);
    }

    /**
     * Runs {@code threads} threads of {@code attempt} through the survivors in turn; once {@code readyToLose} holds,
     * loses the owner, waits until the survivors are the cluster and have made {@code attemptsAfter} attempts more,
     * then stops them.
     */
    private static void loadThroughOwnerLoss(List<HazelcastCounterStore> survivors, int threads, Attempt attempt,
                                             BooleanSupplier readyToLose, String ready, Runnable loseOwner,
                                             int attemptsAfter) throws Exception {
        AtomicInteger attemptsAfterLoss = new AtomicInteger();
        AtomicBoolean lost = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService load = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                HazelcastCounterStore via = survivors.get(t % survivors.size());
                int worker = t;
                workers.add(load.submit(() -> {
                    for (int i = 0; !stop.get(); i++) {
                        boolean afterLoss = lost.get();
                        attempt.run(via, worker, i);
                        if (afterLoss) {
                            attemptsAfterLoss.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            ClusterSupport.await(readyToLose, Duration.ofSeconds(60), ready);
            loseOwner.run();
            lost.set(true);
            ClusterSupport.awaitClusterSize(survivors.get(0).instance(), survivors.size());
            ClusterSupport.await(() -> attemptsAfterLoss.get() >= attemptsAfter, Duration.ofSeconds(60),
                    "load after the owner left");
            stop.set(true);
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
        } finally {
            stop.set(true);
            load.shutdownNow();
        }
    }
}
