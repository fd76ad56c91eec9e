package dev.sluice.demo;

import static dev.sluice.demo.DemoHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.demo.launcher.DemoLauncher;
import dev.sluice.demo.launcher.DemoOptions;
import dev.sluice.hazelcast.ClusterSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two demo instances, each with its own Jetty and embedded Hazelcast member, started by the launcher with the same
 * cluster name and member list (docs/demo.md's second instance): they form one cluster and share every limit.
 */
@Tag("cluster")
class TwoInstanceClusterTest {

    private static final List<DemoLauncher.RunningDemo> INSTANCES = new ArrayList<>();
    private static DemoHttp first;
    private static DemoHttp second;
    private static String clusterName;

    @BeforeAll
    static void startTwoInstances() throws Exception {
        List<DemoOptions> options = DemoInstances.cluster(2);
        clusterName = options.get(0).clusterName();
        for (DemoOptions instance : options) {
            INSTANCES.add(DemoLauncher.start(instance));
        }
        ClusterSupport.await(() -> members().size() == 2 && members().stream()
                .allMatch(member -> member.getCluster().getMembers().size() == 2),
                Duration.ofSeconds(60), "both instances' members in one cluster");
        first = new DemoHttp(INSTANCES.get(0).uri());
        second = new DemoHttp(INSTANCES.get(1).uri());
    }

    /** The Hazelcast members of this test's cluster in this JVM. */
    private static List<HazelcastInstance> members() {
        return Hazelcast.getAllHazelcastInstances().stream()
                .filter(member -> member.getConfig().getClusterName().equals(clusterName)).toList();
    }

    @AfterAll
    static void stop() throws Exception {
        for (DemoLauncher.RunningDemo instance : INSTANCES) {
            instance.close();
        }
    }

    @Test
    void loginLimit_countedAcrossBothInstances() throws Exception {
        for (int i = 0; i < 5; i++) {
            DemoHttp instance = i % 2 == 0 ? first : second;
            assertThat(instance.post("/api/login", "X-Username", "ada-cluster").statusCode()).isEqualTo(200);
        }
        assertThat(first.post("/api/login", "X-Username", "ada-cluster").statusCode()).isEqualTo(429);
        assertThat(second.post("/api/login", "X-Username", "ada-cluster").statusCode()).isEqualTo(429);
    }

    @Test
    void perIpLimit_countedAcrossBothInstances() throws Exception {
        for (int i = 0; i < 5; i++) {
            DemoHttp instance = i < 3 ? first : second;
            assertThat(instance.get("/api/hello", "X-Forwarded-For", "198.51.100.20").statusCode()).isEqualTo(200);
        }
        assertThat(second.get("/api/hello", "X-Forwarded-For", "198.51.100.20").statusCode()).isEqualTo(429);
    }

    @Test
    void limiterService_incrementOnOne_seenByTheOther() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(first.post("/api/limits/nightly-export/increment", DemoHttp.SERVICE_CLIENT).statusCode())
                    .isEqualTo(200);
        }
        assertThat(json(second.get("/api/limits/nightly-export/delay")).path("delayMs").asLong()).isPositive();
        assertThat(second.post("/api/limits/nightly-export/acquire?maxWaitMs=0", DemoHttp.SERVICE_CLIENT)
                .statusCode()).isEqualTo(429);
    }
}
