package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.LifecycleEvent;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two sub-clusters that counted one key apart merge into one. They are made by starting two single members of one
 * cluster name that do not know each other's address; once both have counted, the first is told the second's address
 * (its TCP-IP member list is read afresh by every split-brain search), finds the second cluster and merges.
 */
@Tag("cluster")
class SplitBrainTest {

    private static final Policy TEN_PER_HOUR = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofHours(1)));

    private final List<HazelcastCounterStore> members = new ArrayList<>();

    @AfterEach
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    @Test
    void merge_subClustersCountedOneKeyApart_keepsTheMoreConsumedState() throws InterruptedException {
        ManualTimeSource time = new ManualTimeSource();
        String clusterName = ClusterSupport.newClusterName();
        int first = ClusterSupport.freePort();
        int second = ClusterSupport.freePort();
        members.add(splitBrainMember(clusterName, first, List.of(first), time));
        members.add(splitBrainMember(clusterName, second, List.of(second), time));
        assertThat(members.get(0).instance().getCluster().getMembers()).hasSize(1);
        assertThat(members.get(1).instance().getCluster().getMembers()).hasSize(1);

        // Whichever side merges into the other, one of these keys has its more consumed copy on the merging side.
        members.get(0).execute("more-on-first", Command.decide(TEN_PER_HOUR, 8, 0));
        members.get(1).execute("more-on-first", Command.decide(TEN_PER_HOUR, 6, 0));
        members.get(0).execute("more-on-second", Command.decide(TEN_PER_HOUR, 6, 0));
        members.get(1).execute("more-on-second", Command.decide(TEN_PER_HOUR, 8, 0));
        members.get(1).execute("only-on-second", Command.decide(TEN_PER_HOUR, 3, 0));
        // Every algorithm: one key drawn unevenly on the two sides; what each side had left is the bound after merging.
        Map<Algorithm, Long> leftOnEitherSide = new EnumMap<>(Algorithm.class);
        for (Algorithm algorithm : Algorithm.values()) {
            Policy policy = tenPerHour(algorithm);
            String key = "drawn-apart-" + algorithm;
            for (int i = 0; i < 7; i++) {
                members.get(0).execute(key, Command.decide(policy, 1, Long.MAX_VALUE));
            }
            for (int i = 0; i < 4; i++) {
                members.get(1).execute(key, Command.decide(policy, 1, Long.MAX_VALUE));
            }
            leftOnEitherSide.put(algorithm, Math.min(members.get(0).execute(key, Command.peek(policy, 0)).remaining(),
                    members.get(1).execute(key, Command.peek(policy, 0)).remaining()));
        }
        // Fired on the merging member once its entries have been merged into the other cluster.
        CountDownLatch merged = new CountDownLatch(1);
        for (HazelcastCounterStore member : members) {
            member.instance().getLifecycleService().addLifecycleListener(event -> {
                if (event.getState() == LifecycleEvent.LifecycleState.MERGED) {
                    merged.countDown();
                }
            });
        }
        members.get(0).instance().getConfig().getNetworkConfig().getJoin().getTcpIpConfig()
                .addMember(ClusterSupport.LOOPBACK + ":" + second);

        assertThat(merged.await(60, TimeUnit.SECONDS)).as("the sub-clusters merged").isTrue();
        for (HazelcastCounterStore member : members) {
            ClusterSupport.awaitClusterSize(member.instance(), 2);
        }
        for (HazelcastCounterStore member : members) {
            assertThat(member.execute("more-on-first", Command.peek(TEN_PER_HOUR, 0)).remaining()).isEqualTo(2);
            assertThat(member.execute("more-on-second", Command.peek(TEN_PER_HOUR, 0)).remaining()).isEqualTo(2);
            assertThat(member.execute("only-on-second", Command.peek(TEN_PER_HOUR, 0)).remaining()).isEqualTo(7);
            for (Algorithm algorithm : Algorithm.values()) {
                assertThat(member.execute("drawn-apart-" + algorithm, Command.peek(tenPerHour(algorithm),
                        0)).remaining())
                        .as("%s after the merge", algorithm).isLessThanOrEqualTo(leftOnEitherSide.get(algorithm));
            }
        }
    }

    private static Policy tenPerHour(Algorithm algorithm) {
        return Policy.of(algorithm, Limit.of(10, Duration.ofHours(1)));
    }

    private static HazelcastCounterStore splitBrainMember(String clusterName, int port, List<Integer> joinPorts,
            ManualTimeSource time) {
        return HazelcastCounterStore.startMember(ClusterSupport.member(clusterName, port, joinPorts)
                .timeSource(time)
                .property("hazelcast.merge.first.run.delay.seconds", "1")
                .property("hazelcast.merge.next.run.delay.seconds", "1")
                .build());
    }
}
