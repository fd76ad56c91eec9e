package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.EntryView;
import com.hazelcast.internal.util.ConcurrencyUtil;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.store.Command;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.RejectionCachingStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Behaviour of one healthy three-member cluster, shared by the tests (each uses its own keys). */
@Tag("cluster")
class SharedClusterTest {

    private static final Limit TEN_PER_MINUTE = Limit.of(10, Duration.ofMinutes(1));
    private static final ManualTimeSource TIME = new ManualTimeSource();
    private static List<HazelcastCounterStore> members;

    @BeforeAll
    static void startCluster() {
        members = ClusterSupport.startCluster(3, TIME);
    }

    @AfterAll
    static void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    /**
     * Where the common pool has one thread (two CPUs or fewer, as on CI), Hazelcast would run each async callback on a
     * new thread (see CallbackExecutor); on larger machines this holds anyway.
     */
    @Test
    void decide_thousandsOfCallsThroughTheFailurePolicy_startNoThreadPerCall() {
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(1_000_000, Duration.ofMinutes(1)));
        List<FailurePolicyStore> stores = members.stream()
                .map(member -> FailurePolicyStore.rejecting(member, Duration.ofSeconds(30))).toList();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long startedBefore = threads.getTotalStartedThreadCount();
        for (int i = 0; i < 1_000; i++) {
            FailurePolicyStore store = stores.get(i % 3);
            store.execute("async-" + i % 20, Command.decide(policy, 1, 0));
            store.executeAsync("async-" + i % 20, Command.decide(policy, 1, 0)).toCompletableFuture().join();
            store.execute("async-" + i % 20, Command.peek(policy, 1));
        }
        assertThat(threads.getTotalStartedThreadCount() - startedBefore).as("threads started by 3,000 calls")
                .isLessThan(100);
        assertThat(stores).allSatisfy(store -> assertThat(store.failures() + store.timeouts()).isZero());
    }

    /**
     * Hazelcast's submitToKey would pass each answer on through its default async executor, a task (and a thread woken)
     * per call; see ProcessorCalls. Counted by putting a counting executor in its place for the test.
     */
    @Test
    void asyncCalls_onMembers_handNoTaskToHazelcastsAsyncExecutor() {
        Policy policy = Policy.of(Algorithm.SLIDING_WINDOW_LOG, Limit.of(1_000_000, Duration.ofMinutes(1)));
        Executor before = ConcurrencyUtil.getDefaultAsyncExecutor();
        AtomicInteger tasks = new AtomicInteger();
        ConcurrencyUtil.setDefaultAsyncExecutor(task -> {
            tasks.incrementAndGet();
            before.execute(task);
        });
        try {
            for (int i = 0; i < 100; i++) {
                HazelcastCounterStore member = members.get(i % 3);
                String key = "answering-" + i % 10;
                CompletableFuture.allOf(member.executeAsync(key, Command.decide(policy, 1, 0)).toCompletableFuture(),
                        member.executeAsync(key, Command.peek(policy, 1)).toCompletableFuture(),
                        member.executeAsync(key, Command.record(policy, 1, 0)).toCompletableFuture(),
                        member.executeAsync(key, Command.reserve(policy, 1, 0)).toCompletableFuture()).join();
            }
        } finally {
            ConcurrencyUtil.setDefaultAsyncExecutor(before);
        }
        assertThat(tasks).as("tasks on Hazelcast's async executor for 400 calls").hasValue(0);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void decide_eightThreadsOnEachOfThreeMembers_admitExactlyTheLimit(Algorithm algorithm) throws Exception {
        Policy policy = Policy.of(algorithm, TEN_PER_MINUTE);
        assertThat(ClusterSupport.admitted(members, 8, 10, "hot-" + algorithm, policy, Long.MAX_VALUE))
                .isEqualTo(10);
    }

    @Test
    void decide_grantedKey_livesAtLeastUntilItsStateIsFull() {
        HazelcastCounterStore store = members.get(1);
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofHours(1)));
        Decision decision = store.execute("ttl", Command.decide(policy, 3, 0));

        EntryView<String, CounterState> entry = store.instance().<String, CounterState>getMap(
                HazelcastCounterStore.DEFAULT_MAP_NAME).getEntryView(store.mapKey("ttl"));
        assertThat(entry.getTtl()).isGreaterThanOrEqualTo(decision.resetAfter().toMillis());
        assertThat(entry.getExpirationTime() - entry.getLastUpdateTime())
                .isGreaterThanOrEqualTo(decision.resetAfter().toMillis());
    }

    @Test
    void decide_floodOfDistinctKeys_staysWithinThePerMemberBound() {
        HazelcastCounterStore bounded = HazelcastCounterStore.using(members.get(0).instance(),
                StoreOptions.builder().mapName("bounded").maxKeysPerMember(200).build());
        Policy policy = Policy.of(Algorithm.GCRA, TEN_PER_MINUTE);
        for (int i = 0; i < 3_000; i++) {
            assertThat(bounded.execute("flood-" + i, Command.decide(policy, 1, 0)).allowed()).isTrue();
        }
        assertThat(bounded.size()).isLessThanOrEqualTo(3 * 200);
    }

    @Test
    void decide_rejectionCachedOnOneNode_agreesWithTheClusterUntilRetryAfter() {
        Policy policy = Policy.of(Algorithm.FIXED_WINDOW, TEN_PER_MINUTE);
        RejectionCachingStore cached = new RejectionCachingStore(members.get(0), TIME, 1_000);
        for (int i = 0; i < 10; i++) {
            members.get(1).execute("cached", Command.decide(policy, 1, 0));
        }
        Decision rejected = cached.execute("cached", Command.decide(policy, 1, 0));
        assertThat(rejected.allowed()).isFalse();

        TIME.advanceNanos(rejected.retryAfterNanos() - 1);
        assertThat(cached.execute("cached", Command.decide(policy, 1, 0)).allowed()).isFalse();
        assertThat(cached.hits()).isEqualTo(1);
        assertThat(members.get(2).execute("cached", Command.decide(policy, 1,
                0)).allowed()).as("the cluster's answer").isFalse();

        TIME.advanceNanos(1);
        assertThat(cached.execute("cached", Command.decide(policy, 1, 0)).allowed()).isTrue();
        assertThat(cached.hits()).isEqualTo(1);
    }

    @Test
    void peek_fromEveryMember_seesTheSameStateAndCountsNothing() {
        Policy policy = Policy.of(Algorithm.SLIDING_WINDOW_LOG, TEN_PER_MINUTE);
        members.get(0).execute("peeked", Command.decide(policy, 4, 0));
        for (HazelcastCounterStore member : members) {
            assertThat(member.execute("peeked", Command.peek(policy, 0)).remaining()).isEqualTo(6);
        }
        assertThat(members.get(2).execute("peeked", Command.decide(policy, 1, 0)).remaining()).isEqualTo(5);
    }
}
