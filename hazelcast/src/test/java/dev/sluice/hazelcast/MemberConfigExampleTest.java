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
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The member configurations for a cluster of your own, the README's ({@code docs/hazelcast-member.yaml}) and the member
 * bundle's, are the one Sluice itself would set up: its counters map, under any namespace, matches
 * {@link StoreOptions}' defaults; and a member started from the README's serves a client store exactly (the bundle's
 * is started by {@code MemberBundleTest}, in the filter module).
 */
class MemberConfigExampleTest {

    private static final Path EXAMPLE = Path.of("..", "docs", "hazelcast-member.yaml");

    /** The README's member file, and the member bundle's ({@code target/sluice-member/config}). */
    @ParameterizedTest
    @ValueSource(strings = {"../docs/hazelcast-member.yaml", "src/member/config/hazelcast-member.yaml"})
    void example_countersMapUnderAnyNamespace_isWhatTheStoreWouldConfigure(String file) throws Exception {
        Config config = Config.loadFromFile(Path.of(file).toFile());
        MapConfig expected = StoreOptions.defaults().toMapConfig();

        String counters = HazelcastCounterStore.DEFAULT_MAP_NAME;
        for (String map : List.of(counters, counters + "/app")) {
            MapConfig documented = config.getMapConfig(map);
            assertThat(documented.getBackupCount()).as(map).isEqualTo(expected.getBackupCount());
            assertThat(documented.getAsyncBackupCount()).as(map).isEqualTo(expected.getAsyncBackupCount());
            assertThat(documented.getInMemoryFormat()).as(map).isEqualTo(expected.getInMemoryFormat());
            assertThat(documented.getEvictionConfig()).as(map).isEqualTo(expected.getEvictionConfig());
            assertThat(documented.getMergePolicyConfig().getPolicy()).as(map)
                    .isEqualTo(MoreConsumedMergePolicy.class.getName());
        }
        assertThat(config.getSerializationConfig().getJavaSerializationFilterConfig())
                .isEqualTo(HazelcastCounterStore.javaSerializationFilter());
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
                assertThat(client.apply("documented", policy, 1, 0).allowed()).isTrue();
            }
            assertThat(client.apply("documented", policy, 1, 0).allowed()).isFalse();
            assertThat(client.health().membersSeen()).isEqualTo(1);
        } finally {
            member.shutdown();
        }
    }
}
