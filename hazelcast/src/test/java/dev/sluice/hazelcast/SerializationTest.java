package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.Config;
import com.hazelcast.config.JavaSerializationFilterConfig;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The store needs no Java serialization and no serializer configuration: the jar's hook registers everything. */
@Tag("cluster")
class SerializationTest {

    private final List<HazelcastCounterStore> members = new ArrayList<>();

    @AfterEach
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    @Test
    void decide_javaSerializationDeniedOnEveryMember_decidesAcrossMembers() {
        ManualTimeSource time = new ManualTimeSource();
        String clusterName = ClusterSupport.newClusterName();
        List<Integer> ports = List.of(ClusterSupport.freePort(), ClusterSupport.freePort());
        for (int port : ports) {
            Config config = ClusterSupport.member(clusterName, port, ports).timeSource(time).build().toConfig();
            config.getSerializationConfig().setJavaSerializationFilterConfig(new JavaSerializationFilterConfig()
                    .setDefaultsDisabled(true)
                    .setBlacklist(new ClassFilter().addPrefixes("")));
            members.add(HazelcastCounterStore.startMember(MemberOptions.builder().config(config).build()));
        }
        ClusterSupport.awaitClusterSize(members.get(0).instance(), 2);
        HazelcastCounterStore caller = members.get(0);

        for (Algorithm algorithm : Algorithm.values()) {
            Policy policy = Policy.of(algorithm, Limit.of(3, Duration.ofMinutes(1)), Limit.of(5, Duration.ofHours(1)));
            String key = ClusterSupport.keyOwnedBy(members.get(1), "remote-" + algorithm + "-");
            for (int i = 0; i < 3; i++) {
                assertThat(caller.execute(key, Command.decide(policy, 1, Long.MAX_VALUE)).allowed()).isTrue();
            }
            assertThat(caller.execute(key, Command.decide(policy, 1, Long.MAX_VALUE)).allowed()).isFalse();
            assertThat(caller.execute(key, Command.peek(policy, 1)).allowed()).isFalse();
        }
    }
}
