package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.metrics.MicrometerDecisionMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.DispatcherType;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The filter on Hazelcast stores, configured through its init-params, on real Jetty and real members. */
class ClusteredFilterTest {

    private static final String THREE_PER_MINUTE = """
            {"rules": [{"id": "per-ip", "match": {"paths": ["/api/**"]}, "key": {"type": "ip"},
                        "limits": [{"permits": 3, "period": "1m"}]}]}
            """;

    @TempDir
    Path dir;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    /** Jetty with the filter set up from {@code initParams} in front of {@link EchoServlet}. */
    private JettyServer server(Map<String, String> initParams) throws Exception {
        Path rules = Files.writeString(Files.createTempFile(dir, "rules", ".json"), THREE_PER_MINUTE);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        FilterHolder filter = new FilterHolder(RateLimitFilter.class);
        filter.setInitParameter("rules", "file:" + rules);
        initParams.forEach(filter::setInitParameter);
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new EchoServlet()), "/*");
        JettyServer server = JettyServer.start(50, context);
        resources.add(server);
        return server;
    }

    /** A member configuration file, as an operator would write it, with test-speed properties. */
    private Path memberYaml(String clusterName, int port, List<Integer> joinPorts) throws Exception {
        StringBuilder members = new StringBuilder();
        for (int joinPort : joinPorts) {
            members.append("            - ").append(ClusterSupport.LOOPBACK).append(':').append(joinPort).append('\n');
        }
        return Files.writeString(dir.resolve("hazelcast-" + port + ".yaml"), """
                hazelcast:
                  cluster-name: %s
                  properties:
                    hazelcast.logging.type: jdk
                    hazelcast.phone.home.enabled: false
                    hazelcast.partition.count: 23
                    hazelcast.wait.seconds.before.join: 0
                    hazelcast.max.wait.seconds.before.join: 1
                  network:
                    port:
                      port: %d
                      auto-increment: false
                    interfaces:
                      enabled: true
                      interfaces:
                        - 127.0.0.1
                    join:
                      multicast:
                        enabled: false
                      auto-detection:
                        enabled: false
                      tcp-ip:
                        enabled: true
                        member-list:
                %s""".formatted(clusterName, port, members));
    }

    @Test
    void filter_twoInstancesWithEmbeddedMembers_shareOneLimit() throws Exception {
        String cluster = ClusterSupport.newClusterName();
        List<Integer> ports = List.of(ClusterSupport.freePort(), ClusterSupport.freePort());
        JettyServer first = server(Map.of("store", "hazelcast",
                "hazelcast-config", memberYaml(cluster, ports.get(0), ports).toString()));
        JettyServer second = server(Map.of("store", "hazelcast",
                "hazelcast-config", memberYaml(cluster, ports.get(1), ports).toString()));
        awaitTwoMembers(cluster);

        assertThat(first.get("/api/a").statusCode()).isEqualTo(200);
        assertThat(second.get("/api/b").headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
        assertThat(first.get("/api/c").statusCode()).isEqualTo(200);
        assertThat(second.get("/api/d").statusCode()).isEqualTo(429);
        assertThat(first.get("/api/e").statusCode()).isEqualTo(429);
    }

    private static void awaitTwoMembers(String clusterName) {
        ClusterSupport.await(() -> com.hazelcast.core.Hazelcast.getAllHazelcastInstances().stream()
                        .anyMatch(instance -> instance.getConfig().getClusterName().equals(clusterName)
                                && instance.getCluster().getMembers().size() == 2),
                java.time.Duration.ofSeconds(60), "two filters' members to join");
    }

    @ParameterizedTest
    @CsvSource({"allow, 200, ", "reject, 503, 1", "local, 200, "})
    void filter_clusterDown_followsTheFailurePolicy(String policy, int status, String retryAfter) throws Exception {
        List<HazelcastCounterStore> members = ClusterSupport.startCluster(1, dev.sluice.TimeSource.system());
        resources.add(() -> ClusterSupport.closeAll(members));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Metrics.globalRegistry.add(registry);
        resources.add(() -> Metrics.globalRegistry.remove(registry));
        JettyServer server = server(Map.of(
                "store", "hazelcast-client",
                "hazelcast-cluster-name", members.get(0).instance().getConfig().getClusterName(),
                "hazelcast-members", ClusterSupport.address(members.get(0)),
                "failure-policy", policy,
                "store-timeout", "250ms",
                "metrics", "micrometer"));
        assertThat(server.get("/api/items").headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
        // A loaded machine may time the first, cold call out too: count from here.
        double errorsBefore = storeErrors(registry);

        ClusterSupport.closeAll(members);

        HttpResponse<String> response = server.get("/api/items");
        assertThat(storeErrors(registry) - errorsBefore).isEqualTo(1);
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Retry-After")).isEqualTo(java.util.Optional.ofNullable(retryAfter));
        if (policy.equals("local")) {
            // The local fallback counts on its own from a full bucket.
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
        }
    }

    private static double storeErrors(SimpleMeterRegistry registry) {
        Counter errors = registry.find(MicrometerDecisionMetrics.DECISIONS).tag("rule", "per-ip")
                .tag("outcome", "store-error").counter();
        return errors == null ? 0 : errors.count();
    }
}
