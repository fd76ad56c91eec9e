package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cluster.Member;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.ShardCall;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Faults of a cluster of member processes (separate JVMs on loopback), as an application sees them that is a client
 * of the cluster and decides through a {@link FailurePolicyStore}: a member killed without shutdown, the whole cluster
 * killed and started again, members that answer slowly; and a split brain healed between two processes. Each test
 * prints its figures on one line starting with {@code FAULT}.
 */
@Tag("cluster")
class MemberProcessFaultTest {

    private static final Duration TIMEOUT = FailurePolicyStore.DEFAULT_TIMEOUT;
    /** Generous: a bound for "never held much longer than the timeout" that a loaded machine still meets. */
    private static final Duration MARGIN = Duration.ofSeconds(2);
    /**
     * The applications' timeout where the test counts shared decisions: long enough that a first, cold call to a
     * member on a loaded machine is not mistaken for a failure (a call that times out still counts remotely later).
     */
    private static final Duration APPLICATION_TIMEOUT = Duration.ofSeconds(1);
    /** 100 (and 3) per 300 days: nothing refills while a test runs, so every admission counts against the limit. */
    private static final Policy HUNDRED = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(100, Duration.ofDays(300)));
    private static final int THREADS = 8;
    private static final Policy THREE = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(3, Duration.ofDays(300)));

    @TempDir
    Path logs;

    private MemberProcesses cluster;
    private final List<HazelcastCounterStore> clients = new ArrayList<>();

    @AfterEach
    void stopAll() {
        ClusterSupport.closeAll(clients);
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * Eight threads drain 32 keys, half of them owned by one member; when the cluster has counted 40% of the busy keys'
     * permits, that member is killed. No key is admitted beyond its limit by more than the calls in flight at the kill
     * (at most one per thread); every decision returns within the timeout.
     */
    @Test
    void decide_ownerOfBusyKeysKilledUnderLoad_keepsEveryKeysConsumedState() throws Exception {
        cluster = new MemberProcesses(3, logs, List.of());
        HazelcastCounterStore client = client();
        int victim = cluster.port(0);
        List<String> keys = new ArrayList<>(keys(client, "busy-", 16, port -> port == victim));
        keys.addAll(keys(client, "other-", 16, port -> port != victim));
        AtomicLong lastFailure = new AtomicLong();
        FailurePolicyStore store = FailurePolicyStore.rejecting(client, TIMEOUT)
                .listeningTo((key, timedOut) -> lastFailure.set(System.nanoTime()));

        List<String> busy = keys.subList(0, 16);
        try (Load load = new Load(store, keys, HUNDRED, THREADS)) {
            ClusterSupport.await(() -> consumed(client, busy) >= 16 * 100 * 4 / 10, Duration.ofSeconds(60),
                    "the busy keys 40% drained");
            int inFlightAtKill = load.inFlight();
            long killedAt = System.nanoTime();
            cluster.kill(0);
            ClusterSupport.await(() -> drained(client, keys), Duration.ofSeconds(90), "every key drained");
            load.stop();
            long failoverMillis = Math.max(0, TimeUnit.NANOSECONDS.toMillis(lastFailure.get() - killedAt));

            long overAdmitted = 0;
            long underAdmitted = 0;
            for (int i = 0; i < keys.size(); i++) {
                long admitted = load.admitted.get(i);
                overAdmitted += Math.max(0, admitted - 100);
                underAdmitted += Math.max(0, 100 - admitted);
            }
            System.out.printf("FAULT owner killed: keys=%d limit=100 admitted=%d over=%d under=%d inFlightAtKill=%d "
                            + "decisions=%d timeouts=%d failures=%d lastFailureAfterKillMs=%d maxDecisionMs=%d%n",
                    keys.size(), load.admittedOn(0, keys.size()), overAdmitted, underAdmitted, inFlightAtKill,
                    load.decisions.get(), store.timeouts(), store.failures(), failoverMillis,
                    TimeUnit.NANOSECONDS.toMillis(load.slowestNanos.get()));
            assertThat(overAdmitted).as("admissions beyond the limit").isLessThanOrEqualTo(THREADS);
            assertThat(Duration.ofNanos(load.slowestNanos.get())).isLessThan(TIMEOUT.plus(MARGIN));
        }
    }

    /**
     * Two applications decide 16 synchronised keys whose shards one member process holds, with a budget of 3, from
     * eight threads each; when the cluster has counted 40% of their permits, that process is killed. No key is
     * admitted beyond its limit plus the other application's budget: every hit the owner answered was in its
     * synchronous backup, the hits of a call it never answered are sent again to the new owner, and neither
     * application ever holds more than 3 permits of a key the owners have not counted. Every decision returns within
     * the timeout.
     */
    @Test
    void decide_ownerOfSynchronisedKeysKilledUnderLoad_admitsNoKeyBeyondItsLimitAndTheBudget() throws Exception {
        cluster = new MemberProcesses(3, logs, List.of());
        HazelcastCounterStore first = client();
        HazelcastCounterStore second = client();
        HazelcastCounterStore observer = client();
        int victim = cluster.port(0);
        long budget = 3;
        Policy synced = HUNDRED.synchronised(budget);
        List<String> keys = syncedKeys(first, "synced-", 16, port -> port == victim);
        FailurePolicyStore firstStore = FailurePolicyStore.rejecting(first, TIMEOUT);
        FailurePolicyStore secondStore = FailurePolicyStore.rejecting(second, TIMEOUT);

        try (Load firstLoad = new Load(firstStore, keys, synced, THREADS);
             Load secondLoad = new Load(secondStore, keys, synced, THREADS)) {
            ClusterSupport.await(() -> consumed(observer, keys, synced) >= 16 * 100 * 4 / 10, Duration.ofSeconds(60),
                    "the keys 40% drained");
            cluster.kill(0);
            ClusterSupport.await(() -> consumed(observer, keys, synced) >= 100L * keys.size(), Duration.ofSeconds(90),
                    "every key drained");
            firstLoad.stop();
            secondLoad.stop();

            long overAdmitted = 0;
            long mostOnOneKey = 0;
            for (int i = 0; i < keys.size(); i++) {
                long admitted = firstLoad.admitted.get(i) + secondLoad.admitted.get(i);
                overAdmitted += Math.max(0, admitted - 100);
                mostOnOneKey = Math.max(mostOnOneKey, admitted);
            }
            long slowest = Math.max(firstLoad.slowestNanos.get(), secondLoad.slowestNanos.get());
            System.out.printf("FAULT synchronised owner killed: keys=%d limit=100 budget=%d admitted=%d over=%d"
                            + " most on one key=%d decided here=%d on the owners=%d maxDecisionMs=%d%n", keys.size(),
                    budget, firstLoad.admittedOn(0, keys.size()) + secondLoad.admittedOn(0, keys.size()),
                    overAdmitted, mostOnOneKey, first.syncs().localDecisions() + second.syncs().localDecisions(),
                    first.syncs().ownerDecisions() + second.syncs().ownerDecisions(),
                    TimeUnit.NANOSECONDS.toMillis(slowest));
            assertThat(mostOnOneKey).as("admissions on one key").isLessThanOrEqualTo(100 + budget);
            assertThat(Duration.ofNanos(slowest)).isLessThan(TIMEOUT.plus(MARGIN));
        }
    }

    /**
     * Two applications share a limit; the whole cluster is killed, then started again. While it is down each
     * application counts on its own fallback within the timeout; once it is back they share counters again, with no
     * restart.
     */
    @Test
    void decide_wholeClusterDownAndBack_fallsBackThenSharesAgain() {
        cluster = new MemberProcesses(3, logs, List.of());
        FailurePolicyStore first = withFallback(client());
        FailurePolicyStore second = withFallback(client());
        awaitDecidingRemotely(first, second);
        assertThat(admittedAlternately(first, second, "before", 6)).isEqualTo(3);

        for (int i = 0; i < 3; i++) {
            cluster.kill(i);
        }
        long slowestWhileDown = 0;
        int admittedWhileDown = 0;
        for (FailurePolicyStore app : List.of(first, second)) {
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                admittedWhileDown += app.execute("while-down", Command.decide(THREE, 1, 0)).allowed() ? 1 : 0;
                slowestWhileDown = Math.max(slowestWhileDown, System.nanoTime() - start);
            }
        }
        assertThat(admittedWhileDown).as("each application on its own fallback").isEqualTo(6);
        assertThat(Duration.ofNanos(slowestWhileDown)).isLessThan(APPLICATION_TIMEOUT.plus(MARGIN));

        cluster.restartAll(List.of());
        cluster.awaitSafe();
        long restartedAt = System.nanoTime();
        awaitDecidingRemotely(first, second);
        long reconnectMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt);
        long failuresBefore = first.failures() + first.timeouts() + second.failures() + second.timeouts();

        assertThat(admittedAlternately(first, second, "after", 6)).as("shared again").isEqualTo(3);
        assertThat(first.failures() + first.timeouts() + second.failures() + second.timeouts())
                .isEqualTo(failuresBefore);
        System.out.printf("FAULT cluster down and back: admittedWhileDown=%d (limit 3 per application) "
                        + "slowestDecisionWhileDownMs=%d decidingRemotelyAfterClusterReadyMs=%d admittedAfter=3 of 6%n",
                admittedWhileDown, TimeUnit.NANOSECONDS.toMillis(slowestWhileDown), reconnectMillis);
    }

    /**
     * A member process that takes 300 ms per decision, three times the timeout (one member: what is slow is each
     * call, however many members share the keys). Sixteen threads deciding for three seconds on
     * eight keys get every answer within the timeout, the application's thread count stays where the load put it, and
     * the calls waiting in the cluster stay bounded. Unbatched, every decision is a call, and once 64 wait in the
     * cluster the store stops adding more (it sheds them to the failure rule). Batched, each key has one call in
     * flight and the decisions that time out while queued behind it are never sent, so the cluster never holds more
     * than eight calls and nothing needs shedding.
     */
    @ParameterizedTest(name = "batching {0}")
    @ValueSource(booleans = {false, true})
    void decide_membersSlowerThanTheTimeout_answersWithinTheTimeoutWithoutPilingUpThreads(boolean batching)
            throws Exception {
        cluster = new MemberProcesses(1, logs, List.of("latency=300"));
        FailurePolicyStore store = FailurePolicyStore.rejecting(client(batching), TIMEOUT).withMaxPending(64);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int threadsBefore = threads.getThreadCount();
        AtomicInteger peakThreads = new AtomicInteger(threadsBefore);
        List<String> keys = List.of("slow-0", "slow-1", "slow-2", "slow-3", "slow-4", "slow-5", "slow-6", "slow-7");

        try (Load load = new Load(store, keys, HUNDRED, 16)) {
            long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < until) {
                peakThreads.accumulateAndGet(threads.getThreadCount(), Math::max);
                Thread.sleep(10);
            }
            load.stop();
            System.out.printf("FAULT slow members (300 ms, timeout %d ms, at most 64 pending, batching %s): "
                            + "decisions=%d admitted=%d timeouts=%d shed=%d maxDecisionMs=%d threadsBefore=%d "
                            + "peakThreads=%d%n",
                    TIMEOUT.toMillis(), batching, load.decisions.get(), load.admittedOn(0, keys.size()),
                    store.timeouts(), store.shed(), TimeUnit.NANOSECONDS.toMillis(load.slowestNanos.get()),
                    threadsBefore, peakThreads.get());
            assertThat(store.timeouts()).isPositive();
            if (batching) {
                assertThat(store.shed()).as("calls shed though at most 8 can be in flight").isZero();
            } else {
                assertThat(store.shed()).as("calls not sent while 64 waited in the cluster").isPositive();
            }
            assertThat(store.timeouts() + store.shed() + store.failures()).isEqualTo(load.decisions.get());
            assertThat(Duration.ofNanos(load.slowestNanos.get())).isLessThan(TIMEOUT.plus(MARGIN));
            assertThat(peakThreads.get() - threadsBefore).as("threads added while the store was slow")
                    .isLessThanOrEqualTo(16 + 16);
        }
    }

    /**
     * Two member processes of one cluster name that do not know each other (a split brain) count the same keys apart:
     * per algorithm, one key drawn 7 times on the first side and 4 on the second, one the other way round, so that
     * whichever side merges into the other, one key has its more consumed copy on the merging side. Then one learns
     * the other's address and they merge. No key then has more left than either side had.
     */
    @Test
    void merge_twoProcessesCountedApart_leaveNoKeyMoreThanEitherSideHad() {
        cluster = MemberProcesses.apart(2, logs);
        Map<String, Long> leftOnEitherSide = new LinkedHashMap<>();
        for (Algorithm algorithm : Algorithm.values()) {
            for (int heavier = 0; heavier < 2; heavier++) {
                String key = "more-on-" + heavier + "-" + algorithm;
                long first = Long.parseLong(cluster.ask(0, "apply " + algorithm + " " + key + " "
                        + (heavier == 0 ? 7 : 4)));
                long second = Long.parseLong(cluster.ask(1, "apply " + algorithm + " " + key + " "
                        + (heavier == 1 ? 7 : 4)));
                leftOnEitherSide.put(key, Math.min(first, second));
            }
        }
        assertThat(cluster.ask(0, "members")).isEqualTo("1");

        long joinedAt = System.nanoTime();
        cluster.ask(0, "join " + cluster.port(1));
        ClusterSupport.await(() -> (cluster.printed(0, "merged") || cluster.printed(1, "merged"))
                        && cluster.ask(0, "members").equals("2") && cluster.ask(1, "members").equals("2"),
                Duration.ofSeconds(90), "the two processes to merge");
        long mergeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - joinedAt);

        Map<String, Long> leftAfter = new LinkedHashMap<>();
        leftOnEitherSide.forEach((key, bound) -> {
            String algorithm = key.substring(key.lastIndexOf('-') + 1);
            for (int member = 0; member < 2; member++) {
                long left = Long.parseLong(cluster.ask(member, "peek " + algorithm + " " + key));
                assertThat(left).as("%s after the merge, seen from member %d", key, member).isLessThanOrEqualTo(bound);
                leftAfter.put(key, left);
            }
        });
        System.out.printf("FAULT split brain: limit 10, drawn 7 and 4 apart; member %d merged into the other %d ms "
                + "after the address was given; left on either side %s; left after the merge %s%n",
                cluster.printed(0, "merged") ? 0 : 1, mergeMillis, leftOnEitherSide.values(), leftAfter.values());
    }

    private HazelcastCounterStore client() {
        return client(true);
    }

    private HazelcastCounterStore client(boolean batching) {
        HazelcastCounterStore client = HazelcastCounterStore.connectClient(
                ClusterSupport.client(cluster.clusterName(), cluster.addresses())
                        .store(StoreOptions.builder().batching(batching).build()).build());
        clients.add(client);
        return client;
    }

    private static FailurePolicyStore withFallback(HazelcastCounterStore client) {
        return FailurePolicyStore.fallingBackTo(client, APPLICATION_TIMEOUT,
                new LocalCounterStore(TimeSource.system(), 1000));
    }

    /** {@code count} keys starting with {@code prefix} whose owner's port passes {@code ownerPort}. */
    private static List<String> keys(HazelcastCounterStore client, String prefix, int count,
            IntPredicate ownerPort) {
        ClusterSupport.await(() -> client.instance().getPartitionService().getPartition(prefix).getOwner() != null,
                Duration.ofSeconds(30), "the client to learn the partition owners");
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            Member owner = client.instance().getPartitionService().getPartition(client.mapKey(prefix + i)).getOwner();
            if (ownerPort.test(owner.getAddress().getPort())) {
                keys.add(prefix + i);
            }
        }
        return keys;
    }

    /** {@code count} keys of synchronised policies whose shard a member on a port {@code ownerPort} accepts holds. */
    private static List<String> syncedKeys(HazelcastCounterStore client, String prefix, int count,
                                           IntPredicate ownerPort) {
        ClusterSupport.await(() -> client.instance().getPartitionService().getPartition(prefix).getOwner() != null,
                Duration.ofSeconds(30), "the client to learn the partition owners");
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            Member owner = client.instance().getPartitionService()
                    .getPartition(ShardCall.shardKey(ShardCall.shardOf(client.mapKey(prefix + i)))).getOwner();
            if (ownerPort.test(owner.getAddress().getPort())) {
                keys.add(prefix + i);
            }
        }
        return keys;
    }

    /**
     * The permits the owners have counted on {@code keys} of {@code policy}, as a store with no view of them sees
     * (every request's cost is 1, so at most the limit each), or -1 while it cannot tell (failing over).
     */
    private static long consumed(HazelcastCounterStore observer, List<String> keys, Policy policy) {
        try {
            return keys.stream().mapToLong(key -> 100 - observer.execute(key, Command.peek(policy,
                    0)).remaining()).sum();
        } catch (RuntimeException stillFailingOver) {
            return -1;
        }
    }

    private static boolean drained(HazelcastCounterStore client, List<String> keys) {
        return consumed(client, keys) == 100L * keys.size();
    }

    /** The permits the cluster has counted on {@code keys}, or -1 while it cannot tell (failing over). */
    private static long consumed(HazelcastCounterStore client, List<String> keys) {
        try {
            return keys.stream().mapToLong(key -> 100 - client.execute(key, Command.peek(HUNDRED,
                    1)).remaining()).sum();
        } catch (RuntimeException stillFailingOver) {
            return -1;
        }
    }

    /**
     * Waits until both applications' calls are decided by the cluster within the timeout (connected and warm): five
     * in a row each, since the first calls after a start may still be slow.
     */
    /**
     * Waits until both applications decide on the cluster five rounds in a row, each round with a key owned by every
     * member (as the first application's client sees the owners then): a member that has not decided yet is cold (its
     * first decision loads and compiles the store's code, and the client may still be connecting to it), and on a
     * loaded machine that first call can outlast the application's timeout.
     */
    private void awaitDecidingRemotely(FailurePolicyStore first, FailurePolicyStore second) {
        int[] inARow = {0};
        ClusterSupport.await(() -> {
            boolean remote = true;
            for (int member = 0; member < 3 && remote; member++) {
                int port = cluster.port(member);
                String key = keys(clients.get(0), "probe-", 1, owner -> owner == port).get(0);
                remote = ClusterSupport.decidesRemotely(first, key) && ClusterSupport.decidesRemotely(second, key);
            }
            inARow[0] = remote ? inARow[0] + 1 : 0;
            return inARow[0] >= 5;
        }, Duration.ofSeconds(120), "both applications deciding on every member");
    }

    private static int admittedAlternately(CounterStore first, CounterStore second, String key, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += (i % 2 == 0 ? first : second).execute(key, Command.decide(THREE, 1, 0)).allowed() ? 1 : 0;
        }
        return admitted;
    }

    /**
     * Threads deciding on keys in turn until stopped, counting admissions per key, decisions, calls in flight and the
     * slowest decision.
     */
    private static final class Load implements AutoCloseable {
        final AtomicLongArray admitted;
        final AtomicLong decisions = new AtomicLong();
        final AtomicLong slowestNanos = new AtomicLong();
        private final AtomicInteger inFlight = new AtomicInteger();
        private final AtomicBoolean stopped = new AtomicBoolean();
        private final ExecutorService pool;
        private final List<Future<?>> workers = new ArrayList<>();

        Load(CounterStore store, List<String> keys, Policy policy, int threads) {
            admitted = new AtomicLongArray(keys.size());
            pool = Executors.newFixedThreadPool(threads);
            for (int t = 0; t < threads; t++) {
                int offset = t;
                workers.add(pool.submit(() -> {
                    for (int i = offset; !stopped.get(); i++) {
                        int k = i % keys.size();
                        inFlight.incrementAndGet();
                        long start = System.nanoTime();
                        Decision decision = store.execute(keys.get(k), Command.decide(policy, 1, 0));
                        slowestNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
                        inFlight.decrementAndGet();
                        decisions.incrementAndGet();
                        if (decision.allowed()) {
                            admitted.incrementAndGet(k);
                        } else {
                            // Rejections (and shed calls) are instant: without a pause the threads would spin.
                            LockSupport.parkNanos(1_000_000);
                        }
                    }
                    return null;
                }));
            }
        }

        long admittedOn(int from, int to) {
            long sum = 0;
            for (int k = from; k < to; k++) {
                sum += admitted.get(k);
            }
            return sum;
        }

        int inFlight() {
            return inFlight.get();
        }

        void stop() throws Exception {
            stopped.set(true);
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
        }

        @Override
        public void close() {
            stopped.set(true);
            pool.shutdownNow();
        }
    }
}
