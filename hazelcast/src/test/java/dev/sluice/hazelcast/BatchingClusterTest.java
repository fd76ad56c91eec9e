package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.map.IMap;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.calls.Batcher;
import dev.sluice.hazelcast.internal.wire.BatchApplyProcessor;
import dev.sluice.hazelcast.internal.wire.BatchResult;
import dev.sluice.hazelcast.internal.wire.CallAnswer;
import dev.sluice.hazelcast.internal.wire.CounterCommand;
import dev.sluice.hazelcast.internal.wire.CounterState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Same-key batches on a real three-member cluster (TCP-IP on loopback, multicast off): a batch decides each request
 * as if it came alone, in order, and many threads on every member share one hot key's limit, or many keys' limits,
 * exactly while their calls are batched. One cluster serves every test; each uses keys of its own.
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
            alone.add(counters.executeOnKey(keys.alone, CounterCommand.apply(request.policy(), request.cost(),
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
    void decide_eightThreadsOnEachOfThreeMembersOnOneKey_batchAndAdmitExactlyTheLimit(Algorithm algorithm)
            throws Exception {
        Policy policy = Policy.of(algorithm, HUNDRED_PER_HOUR);

        int admitted = ClusterSupport.admitted(members, THREADS_PER_MEMBER, ATTEMPTS_PER_THREAD, "hot-" + algorithm,
                policy, Long.MAX_VALUE);

        assertThat(admitted).isEqualTo(100);
        assertThat(members.stream().mapToLong(HazelcastCounterStore::batchesSent).sum())
                .as("calls that carried several decisions").isPositive();
    }

    /** Eight threads on each of three members drain 60 keys of every algorithm in turn: each admits its limit. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void decide_eightThreadsOnEachOfThreeMembersOnManyKeys_admitExactlyEachLimit(Algorithm algorithm) throws Exception {
        int[] admitted = ClusterSupport.admittedPerKey(members, THREADS_PER_MEMBER, 2, "many-" + algorithm + "-", 60,
                Policy.of(algorithm, Limit.of(10, Duration.ofHours(1))));

        assertThat(admitted).as("admitted per key").containsOnly(10);
    }

    @Test
    void decide_batchingOff_sendsEveryDecisionAloneAndStaysExact() throws Exception {
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
        } finally {
            ClusterSupport.closeAll(unbatched);
        }
    }

    private static Batcher.Request request(Policy policy, long cost, long maxDelayNanos) {
        return new Batcher.Request("k", policy, cost, maxDelayNanos, CallAnswer.waiting());
    }

    /** The map keys of two keys owned by one member, so both runs cross the network to the same owner. */
    private static final class OwnedKeys {
        final String batched;
        final String alone;

        OwnedKeys(HazelcastCounterStore owner, Object name) {
            batched = owner.mapKey(ClusterSupport.keyOwnedBy(owner, "batched-" + name + "-"));
            alone = owner.mapKey(ClusterSupport.keyOwnedBy(owner, "alone-" + name + "-"));
        }
    }
}
