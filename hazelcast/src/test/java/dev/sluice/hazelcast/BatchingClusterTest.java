package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import com.hazelcast.map.IMap;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.calls.Batcher;
import dev.sluice.hazelcast.internal.calls.CallAnswer;
import dev.sluice.hazelcast.internal.wire.ApplyProcessor;
import dev.sluice.hazelcast.internal.wire.BatchApplyProcessor;
import dev.sluice.hazelcast.internal.wire.BatchResult;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.MemberBatchTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Same-key and per-member batches on a real three-member cluster (TCP-IP on loopback, multicast off): a batch decides
 * each request as if it came alone, in order, and many threads on every member share one hot key's limit, or many
 * keys' limits, exactly while their calls are batched. One cluster serves every test; each uses keys of its own.
 */
@Tag("cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BatchingClusterTest {

    private static final int THREADS_PER_MEMBER = 8;
    private static final int ATTEMPTS_PER_THREAD = 40;
    private static final Limit HUNDRED_PER_HOUR = Limit.of(100, Duration.ofHours(1));

    private final ManualTimeSource time = new ManualTimeSource();
    private List<HazelcastCounterStore> members = List.of();

    @BeforeAll
    void startCluster() {
        members = ClusterSupport.startCluster(3, time);
    }

    @AfterAll
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void process_batchOfCostsAndDelays_decidesEachAsIfAloneAndInOrder(Algorithm algorithm) {
        Policy small = Policy.of(algorithm, Limit.of(5, Duration.ofMinutes(1)));
        Policy twoLimits = Policy.of(algorithm, Limit.of(6, Duration.ofMinutes(1)).named("minute"),
                Limit.of(3, Duration.ofHours(1)).named("hour"));
        List<Batcher.Request> requests = List.of(request(small, 2, 0), request(small, 4, 0),
                request(small, 1, Duration.ofSeconds(30).toNanos()), request(small, 3, Long.MAX_VALUE),
                request(small, 1, 0), request(twoLimits, 1, 0), request(twoLimits, 2, 0), request(small, 1, 0));
        HazelcastCounterStore caller = members.get(0);
        OwnedKeys keys = new OwnedKeys(members.get(1), algorithm);
        IMap<String, CounterState> counters = caller.instance().getMap(HazelcastCounterStore.DEFAULT_MAP_NAME);
        time.advance(Duration.ofSeconds(7));

        BatchResult batched = counters.executeOnKey(keys.batched, new BatchApplyProcessor(requests));
        List<Decision> alone = new ArrayList<>();
        for (Batcher.Request request : requests) {
            alone.add(counters.executeOnKey(keys.alone, new ApplyProcessor(request.policy(), request.cost(),
                    request.maxDelayNanos())).decision());
        }

        for (int i = 0; i < requests.size(); i++) {
            assertThat(batched.decision(i, requests.get(i).policy())).as("request %d", i).isEqualTo(alone.get(i));
        }
        assertThat(counters.get(keys.batched)).usingRecursiveComparison().isEqualTo(counters.get(keys.alone));
        assertThat(counters.getEntryView(keys.batched).getTtl())
                .isEqualTo(counters.getEntryView(keys.alone).getTtl());
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void apply_eightThreadsOnEachOfThreeMembersOnOneKey_batchAndAdmitExactlyTheLimit(Algorithm algorithm)
            throws Exception {
        Policy policy = Policy.of(algorithm, HUNDRED_PER_HOUR);

        int admitted = ClusterSupport.admitted(members, THREADS_PER_MEMBER, ATTEMPTS_PER_THREAD, "hot-" + algorithm,
                policy, Long.MAX_VALUE);

        assertThat(admitted).isEqualTo(100);
        assertThat(members.stream().mapToLong(HazelcastCounterStore::batchesSent).sum())
                .as("calls that carried several decisions").isPositive();
    }

    @Test
    void apply_memberBatchingOff_sendsNoMemberBatch() throws Exception {
        long before = members.stream().mapToLong(HazelcastCounterStore::memberBatchesSent).sum();

        int[] admitted = ClusterSupport.admittedPerKey(members, THREADS_PER_MEMBER, 2, "default-", 60,
                Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofHours(1))));

        assertThat(admitted).containsOnly(10);
        assertThat(members.stream().mapToLong(HazelcastCounterStore::memberBatchesSent).sum()).isEqualTo(before);
    }

    @Test
    void apply_batchingOff_sendsEveryDecisionAloneAndStaysExact() throws Exception {
        List<HazelcastCounterStore> unbatched = new ArrayList<>();
        try {
            for (HazelcastCounterStore member : members) {
                unbatched.add(HazelcastCounterStore.using(member.instance(),
                        StoreOptions.builder().mapName("unbatched").batching(false).build()));
            }

            int admitted = ClusterSupport.admitted(unbatched, THREADS_PER_MEMBER, ATTEMPTS_PER_THREAD, "hot",
                    Policy.of(Algorithm.TOKEN_BUCKET, HUNDRED_PER_HOUR), Long.MAX_VALUE);

            assertThat(admitted).isEqualTo(100);
            assertThat(unbatched.stream().mapToLong(HazelcastCounterStore::batchesSent).sum()).isZero();
            assertThat(unbatched.stream().mapToLong(HazelcastCounterStore::memberBatchesSent).sum()).isZero();
        } finally {
            ClusterSupport.closeAll(unbatched);
        }
    }

    /**
     * One member batch carrying keys of every algorithm, several requests on some, with costs and delays: each decision
     * is what the same request gets alone, in the same order, on a twin key of the same owner.
     */
    @Test
    void call_memberBatchMixingKeysAlgorithmsAndCosts_decidesEachAsIfAloneAndInOrder() throws Exception {
        HazelcastCounterStore caller = members.get(0);
        HazelcastCounterStore owner = members.get(1);
        List<String> batchedKeys = new ArrayList<>();
        List<String> aloneKeys = new ArrayList<>();
        List<List<Batcher.Request>> requests = new ArrayList<>();
        for (Algorithm algorithm : Algorithm.values()) {
            Policy policy = Policy.of(algorithm, Limit.of(5, Duration.ofMinutes(1)));
            OwnedKeys several = new OwnedKeys(owner, "member-" + algorithm);
            batchedKeys.add(several.batched);
            aloneKeys.add(several.alone);
            requests.add(List.of(request(policy, 2, 0), request(policy, 4, 0),
                    request(policy, 1, Duration.ofSeconds(30).toNanos()), request(policy, 3, Long.MAX_VALUE)));
            OwnedKeys single = new OwnedKeys(owner, "member-single-" + algorithm);
            batchedKeys.add(single.batched);
            aloneKeys.add(single.alone);
            requests.add(List.of(request(policy, algorithm.ordinal() % 5 + 1, 0)));
        }
        IMap<String, CounterState> counters = caller.instance().getMap(HazelcastCounterStore.DEFAULT_MAP_NAME);
        time.advance(Duration.ofSeconds(11));

        BatchResult batched = caller.instance().getExecutorService("sluice-batches").submitToMember(
                new MemberBatchTask(HazelcastCounterStore.DEFAULT_MAP_NAME, batchedKeys, requests),
                owner.instance().getCluster().getLocalMember()).get(60, TimeUnit.SECONDS);

        int i = 0;
        for (int k = 0; k < aloneKeys.size(); k++) {
            for (Batcher.Request request : requests.get(k)) {
                Decision alone = counters.executeOnKey(aloneKeys.get(k), new ApplyProcessor(request.policy(),
                        request.cost(), request.maxDelayNanos())).decision();
                assertThat(batched.decision(i, request.policy())).as("request %d, key %s", i, batchedKeys.get(k))
                        .isEqualTo(alone);
                i++;
            }
            assertThat(counters.get(batchedKeys.get(k))).usingRecursiveComparison()
                    .isEqualTo(counters.get(aloneKeys.get(k)));
        }
        assertThat(batched.size()).isEqualTo(i);
    }

    /**
     * Eight threads on each of three members drain 60 keys of every algorithm in turn: each key admits exactly its
     * limit while decisions on the other members' keys travel in member batches.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void apply_eightThreadsOnEachOfThreeMembersOnManyKeys_memberBatchAndAdmitExactlyEachLimit(Algorithm algorithm)
            throws Exception {
        Policy policy = Policy.of(algorithm, Limit.of(10, Duration.ofHours(1)));
        int keys = 60;
        List<HazelcastCounterStore> batching = new ArrayList<>();
        try {
            for (HazelcastCounterStore member : members) {
                batching.add(HazelcastCounterStore.using(member.instance(),
                        StoreOptions.builder().mapName("member-batched").memberBatching(true).build()));
            }

            int[] admitted = ClusterSupport.admittedPerKey(batching, THREADS_PER_MEMBER, 2,
                    "many-" + algorithm + "-", keys, policy);

            assertThat(admitted).as("admitted per key").containsOnly(10);
            assertThat(batching.stream().mapToLong(HazelcastCounterStore::memberBatchesSent).sum())
                    .as("messages that carried several keys to their owner").isPositive();
        } finally {
            ClusterSupport.closeAll(batching);
        }
    }

    private static Batcher.Request request(Policy policy, long cost, long maxDelayNanos) {
        return new Batcher.Request("k", policy, cost, maxDelayNanos, CallAnswer.waiting());
    }

    /** Two keys owned by one member, so both runs cross the network to the same owner. */
    private static final class OwnedKeys {
        final String batched;
        final String alone;

        OwnedKeys(HazelcastCounterStore owner, Object name) {
            batched = ClusterSupport.keyOwnedBy(owner.instance(), "batched-" + name + "-");
            alone = ClusterSupport.keyOwnedBy(owner.instance(), "alone-" + name + "-");
        }
    }
}
