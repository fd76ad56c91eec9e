package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.http.LimiterStatus;
import dev.sluice.internal.state.Lease;
import dev.sluice.metrics.MicrometerDecisionMetrics;
import dev.sluice.store.StoreHealth;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.DispatcherType;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The filter on Hazelcast stores, configured through its init-params, on real Jetty and real members. */
@Tag("cluster")
class ClusteredFilterTest {

    private static final String THREE_PER_MINUTE = """
            {"rules": [{"id": "per-ip", "match": {"paths": ["/api/**"]}, "key": {"type": "ip"},
                        "limits": [{"permits": 3, "period": "1m"}]}]}
            """;

    /** One hot key (a single tenant) of a leased fixed window. */
    private static final String LEASED_TENANT_LIMIT = """
            {"rules": [{"id": "per-tenant", "match": {"paths": ["/api/**"]},
                        "key": {"type": "header", "name": "X-Tenant"}, "lease": true, "algorithm": "fixed_window",
                        "limits": [{"permits": 200, "period": "1h"}]}]}
            """;

    @TempDir
    Path dir;

    private final List<AutoCloseable> resources = new ArrayList<>();
    /** The context of each server {@link #server} started: its filter publishes the store's health there. */
    private final Map<JettyServer, ServletContextHandler> contexts = new HashMap<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    /** Jetty with the filter set up from {@code initParams} in front of {@link EchoServlet}. */
    private JettyServer server(Map<String, String> initParams) throws Exception {
        return server(THREE_PER_MINUTE, initParams);
    }

    /** Jetty with the filter on {@code rulesJson}, set up from {@code initParams}, in front of {@link EchoServlet}. */
    private JettyServer server(String rulesJson, Map<String, String> initParams) throws Exception {
        Path rules = Files.writeString(Files.createTempFile(dir, "rules", ".json"), rulesJson);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        FilterHolder filter = new FilterHolder(RateLimitFilter.class);
        filter.setInitParameter("rules", "file:" + rules);
        initParams.forEach(filter::setInitParameter);
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new EchoServlet()), "/*");
        JettyServer server = JettyServer.start(50, context);
        resources.add(server);
        contexts.put(server, context);
        return server;
    }

    @SuppressWarnings("unchecked")
    private StoreHealth health(JettyServer server) {
        return ((Supplier<StoreHealth>) contexts.get(server).getServletContext()
                .getAttribute(RateLimitFilter.HEALTH_ATTRIBUTE)).get();
    }

    /** A member configuration file, as an operator would write it, with test-speed properties. */
    private Path memberYaml(String clusterName, int port, List<Integer> joinPorts) throws Exception {
        return ClusterSupport.memberYaml(dir, clusterName, port, joinPorts);
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

    /**
     * A leased rule through the filter on two instances with embedded members, leasing on through the init-params
     * (every key hot from its first request: the test is about what leasing answers, not about when a key turns hot).
     * One instance alone on the key first: its slices answer what unleased decisions would, down to the header. Then
     * both at once from eight threads: never more than the limit, and at most what the two can hold in slices
     * (a slice and a half each, a slice at most 1/8 of the 200) fewer.
     */
    @Test
    void filter_leasedRuleOnTwoEmbeddedMembers_countsDownExactlyAloneAndHoldsTheLimitTogether() throws Exception {
        String cluster = ClusterSupport.newClusterName();
        List<Integer> ports = List.of(ClusterSupport.freePort(), ClusterSupport.freePort());
        List<JettyServer> instances = new ArrayList<>();
        for (int port : ports) {
            instances.add(server(LEASED_TENANT_LIMIT, Map.of("store", "hazelcast",
                    "hazelcast-config", memberYaml(cluster, port, ports).toString(),
                    // Hot at one request per span of the lease lifetime: the longest (50 ms) so that a loaded
                    // machine's requests, tens of milliseconds apart, still keep the key hot.
                    "hazelcast-leasing", "true", "hazelcast-hot-key-rate", "1", "hazelcast-lease-lifetime", "50ms",
                    // A slow call on a loaded machine must not be decided by the failure policy, unheaded.
                    "store-timeout", "30s")));
        }
        awaitTwoMembers(cluster);
        JettyServer first = instances.get(0);

        for (int expected = 199; expected >= 100; expected--) {
            HttpResponse<String> alone = first.get("/api/items", "X-Tenant", "acme");
            assertThat(alone.statusCode()).isEqualTo(200);
            assertThat(alone.headers().firstValue("X-RateLimit-Remaining")).hasValue(String.valueOf(expected));
        }
        assertThat(health(first).cluster().leasing().grants()).isPositive();

        AtomicInteger admitted = new AtomicInteger(100);
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                JettyServer instance = instances.get(t % 2);
                running.add(threads.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        HttpResponse<String> response = instance.get("/api/items", "X-Tenant", "acme");
                        assertThat(response.statusCode()).isIn(200, 429);
                        if (response.statusCode() == 200) {
                            admitted.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> thread : running) {
                thread.get(120, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        long largestSlice = 200 / Lease.SLICE_SHARE;
        assertThat(admitted.get()).isLessThanOrEqualTo(200)
                .isGreaterThanOrEqualTo((int) (200 - 2 * (largestSlice + largestSlice / 2)));
    }

    private static void awaitTwoMembers(String clusterName) {
        ClusterSupport.await(() -> com.hazelcast.core.Hazelcast.getAllHazelcastInstances().stream()
                        .anyMatch(instance -> instance.getConfig().getClusterName().equals(clusterName)
                                && instance.getCluster().getMembers().size() == 2),
                java.time.Duration.ofSeconds(60), "two filters' members to join");
    }

    @Test
    void init_clientStoreWithDefaults_logsItsMembersAndTheLocalFailurePolicy() throws Exception {
        List<HazelcastCounterStore> members = ClusterSupport.startCluster(1, dev.sluice.TimeSource.system());
        resources.add(() -> ClusterSupport.closeAll(members));
        List<String> startLines;
        JettyServer server;
        try (LogCapture log = LogCapture.start()) {
            server = server(Map.of("store", "hazelcast-client",
                    "hazelcast-cluster-name", members.get(0).instance().getConfig().getClusterName(),
                    "hazelcast-members", ClusterSupport.address(members.get(0))));
            startLines = log.records().stream().filter(record -> record.contains("Sluice filter")).toList();
        }

        assertThat(startLines).singleElement().asString().contains("INFO: Sluice filter '")
                .containsPattern("' started: store hazelcast-client \\(1 member\\), 1 rule from"
                        + " file:\\S+\\.json \\(reload every 5s\\), failure policy local, timeout 100ms,"
                        + " headers both");
        @SuppressWarnings("unchecked")
        LimiterStatus status = ((Supplier<LimiterStatus>) contexts.get(server).getServletContext()
                .getAttribute(RateLimitFilter.STATUS_ATTRIBUTE)).get();
        assertThat(status.store()).isEqualTo("hazelcast-client");
        assertThat(status.membersSeen()).isEqualTo(1);
        assertThat(status.failurePolicy()).isEqualTo("local");
        assertThat(status.storeTimeout()).isEqualTo("100ms");
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
