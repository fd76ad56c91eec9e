package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The member configuration the README gives for a cluster of your own ({@code docs/hazelcast-member.yaml}) is the
 * one Sluice itself would set up: its maps, under any namespace, match {@link StoreOptions}' defaults, and a
 * member started from it serves a client store exactly.
 */
@Tag("cluster")
class MemberConfigExampleTest {

    private static final Path EXAMPLE = Path.of("..", "docs", "hazelcast-member.yaml");

    @Test
    void example_storesMapsUnderAnyNamespace_areWhatTheStoreWouldConfigure() throws Exception {
        Config config = Config.loadFromFile(EXAMPLE.toFile());
        for (String namespace : List.of("", "/app")) {
            List<MapConfig> maps = StoreOptions.builder().mapName(HazelcastCounterStore.DEFAULT_MAP_NAME + namespace)
                    .build().toMapConfigs();
            assertThat(maps).hasSize(2);
            for (MapConfig expected : maps) {
                assertDocumented(config.getMapConfig(expected.getName()), expected);
            }
        }
        assertThat(config.getSerializationConfig().getJavaSerializationFilterConfig())
                .isEqualTo(HazelcastCounterStore.javaSerializationFilter());
    }

    private static void assertDocumented(MapConfig documented, MapConfig expected) {
        String map = expected.getName();
        assertThat(documented.getBackupCount()).as(map).isEqualTo(expected.getBackupCount());
        assertThat(documented.getAsyncBackupCount()).as(map).isEqualTo(expected.getAsyncBackupCount());
        assertThat(documented.getInMemoryFormat()).as(map).isEqualTo(expected.getInMemoryFormat());
        assertThat(documented.getEvictionConfig()).as(map).isEqualTo(expected.getEvictionConfig());
        assertThat(documented.getMergePolicyConfig().getPolicy()).as(map)
                .isEqualTo(MoreConsumedMergePolicy.class.getName());
    }

    @Test
    void example_memberStartedFromIt_decidesExactlyForAClientStore() throws Exception {
        Config config = Config.loadFromFile(EXAMPLE.toFile());
        String clusterName = ClusterSupport.newClusterName();
        int port = ClusterSupport.freePort();
        config.setClusterName(clusterName);
        ClusterSupport.TEST_PROPERTIES.forEach(config::setProperty);
        NetworkConfig network = config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
        network.getJoin().getTcpIpConfig().setMembers(List.of(ClusterSupport.LOOPBACK + ":" + port));
        network.getInterfaces().setEnabled(true).addInterface(ClusterSupport.LOOPBACK);
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        try (HazelcastCounterStore client = HazelcastCounterStore.connectClient(
                ClusterSupport.client(clusterName, ClusterSupport.LOOPBACK + ":" + port).build())) {
            Policy policy = Policy.of(Algorithm.SLIDING_WINDOW_LOG, Limit.of(3, Duration.ofMinutes(1)));
            for (int i = 0; i < 3; i++) {
                assertThat(client.execute("documented", Command.decide(policy, 1, 0)).allowed()).isTrue();
            }
            assertThat(client.execute("documented", Command.decide(policy, 1, 0)).allowed()).isFalse();
            assertThat(client.services().health().membersSeen()).isEqualTo(1);
        } finally {
            member.shutdown();
        }
    }
}
