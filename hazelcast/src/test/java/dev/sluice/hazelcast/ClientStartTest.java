package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.MapConfig;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import dev.sluice.store.FailurePolicyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A client store built while it cannot reach its cluster: the application starts anyway (after a bounded wait), decides
 * by the failure policy, and counts on the cluster, with the counters map configured, once the cluster is there.
 */
@Tag("cluster")
class ClientStartTest {

    private static final Policy THREE_PER_HOUR = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(3, Duration.ofHours(1)));
    private static final Duration START_WAIT = Duration.ofMillis(500);

    private final List<HazelcastCounterStore> stores = new ArrayList<>();

    @AfterEach
    void stopAll() {
        ClusterSupport.closeAll(stores);
    }

    @Test
    void build_clusterNotYetUp_startsThenCountsOnTheClusterOnceItIs() {
        String clusterName = ClusterSupport.newClusterName();
        int port = ClusterSupport.freePort();
        HazelcastCounterStore client = client(clusterName, port);
        FailurePolicyStore guarded = FailurePolicyStore.rejecting(client, FailurePolicyStore.DEFAULT_TIMEOUT);
        assertThat(guarded.execute("k", Command.decide(THREE_PER_HOUR, 1,
                0)).allowed()).as("rejected while there is no cluster")
                .isFalse();
        assertThat(guarded.failures() + guarded.timeouts()).isEqualTo(1);

        // A member whose own configuration lacks the counters map: the client brings it when it connects.
        HazelcastCounterStore member = HazelcastCounterStore.startMember(ClusterSupport.member(clusterName, port,
                List.of(port)).store(StoreOptions.builder().mapName("not-the-counters").build())
                .timeSource(new ManualTimeSource()).build());
        stores.add(member);
        ClusterSupport.await(() -> ClusterSupport.decidesRemotely(guarded), Duration.ofSeconds(60),
                "the client to connect");

        assertThat(guarded.execute("shared", Command.decide(THREE_PER_HOUR, 1, 0)).remaining()).isEqualTo(2);
        assertThat(member.instance().getMap(HazelcastCounterStore.DEFAULT_MAP_NAME)
                .containsKey(client.mapKey("shared")))
                .as("counted on the member").isTrue();
        ClusterSupport.await(() -> countersMapConfig(member).getEvictionConfig().getSize() == 1234,
                Duration.ofSeconds(30), "the client's counters map configuration on the member");
    }

    @Test
    void build_wrongClusterName_startsAndDecidesByThePolicy() {
        int port = ClusterSupport.freePort();
        HazelcastCounterStore member = HazelcastCounterStore.startMember(
                ClusterSupport.member(ClusterSupport.newClusterName(), port, List.of(port)).build());
        stores.add(member);

        HazelcastCounterStore stranger = client(ClusterSupport.newClusterName(), port);
        FailurePolicyStore guarded = FailurePolicyStore.allowing(stranger, FailurePolicyStore.DEFAULT_TIMEOUT);
        for (int i = 0; i < 5; i++) {
            assertThat(guarded.execute("k", Command.decide(THREE_PER_HOUR, 1, 0)).allowed()).isTrue();
        }
        assertThat(guarded.failures() + guarded.timeouts()).isEqualTo(5);
        assertThat(member.execute("k", Command.peek(THREE_PER_HOUR,
                0)).remaining()).as("nothing reached the cluster").isEqualTo(3);
    }

    private HazelcastCounterStore client(String clusterName, int port) {
        HazelcastCounterStore client = HazelcastCounterStore.connectClient(
                ClusterSupport.client(clusterName, ClusterSupport.LOOPBACK + ":" + port)
                        .store(StoreOptions.builder().maxKeysPerMember(1234).build()).startWait(START_WAIT).build());
        stores.add(client);
        return client;
    }

    private static MapConfig countersMapConfig(HazelcastCounterStore member) {
        return member.instance().getConfig().getMapConfig(HazelcastCounterStore.DEFAULT_MAP_NAME);
    }
}
