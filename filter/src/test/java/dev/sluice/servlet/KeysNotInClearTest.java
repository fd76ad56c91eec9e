package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.engine.Evaluation;
import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.metrics.MicrometerDecisionMetrics;
import dev.sluice.store.FailurePolicyStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.DispatcherType;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys never leave the servlet filter in clear: requests whose keys are {@link CanaryKeys} (an API key, a user, a
 * spoofable header, a path and a query parameter, IPv4 and IPv6 client addresses) go over real HTTP to a real Jetty
 * whose filter counts in a real Hazelcast cluster; they pass, are rejected over their limits, are delayed on a
 * container thread, make the evaluation fail (metrics that throw, naming the {@link Evaluation}), and, once the
 * cluster is gone, fall to the failure policy, as does an application counter in the filter's published store. No
 * log record at any Sluice level (Hazelcast at {@code INFO}), no meter, no response and nothing in the cluster's maps
 * (read by a plain Hazelcast client, as anyone who reaches the cluster could) holds a canary.
 */
@Tag("cluster")
class KeysNotInClearTest {

    private static final String RULES = """
            {"rules": [
              {"id": "per-ip", "match": {"paths": ["/api/ip"]}, "limits": [{"permits": 2, "period": "1m"}]},
              {"id": "per-api-key", "match": {"paths": ["/api/keyed"]},
               "key": {"type": "header", "name": "X-Api-Key"}, "limits": [{"permits": 2, "period": "1m"}],
               "tiers": {"key": {"type": "header", "name": "X-Tenant"},
                         "levels": {"gold": [{"permits": 5, "period": "1m"}]}}},
              {"id": "per-user", "match": {"paths": ["/api/users/{user}"]}, "key": {"type": "path", "name": "user"},
               "limits": [{"permits": 2, "period": "1m"}]},
              {"id": "per-tenant", "match": {"paths": ["/api/search"]}, "key": {"type": "query", "name": "tenant"},
               "limits": [{"permits": 2, "period": "1m"}]},
              {"id": "per-user-and-ip", "match": {"paths": ["/api/login"]},
               "key": {"type": "composite", "parts": [{"type": "header", "name": "X-User"}, {"type": "ip"}]},
               "limits": [{"permits": 2, "period": "1m"}]},
              {"id": "shadow", "match": {"paths": ["/api/catalog"]}, "key": {"type": "header", "name": "X-Tenant"},
               "limits": [{"permits": 1, "period": "1m"}], "mode": "shadow"},
              {"id": "queued", "match": {"paths": ["/api/queue/*"]}, "key": {"type": "header", "name": "X-User"},
               "limits": [{"permits": 1, "period": "1s", "capacity": 3}], "algorithm": "leaky_bucket",
               "maxDelay": "3s"},
              {"id": "audited", "match": {"paths": ["/api/audited/*"]}, "key": {"type": "header", "name": "X-Api-Key"},
               "limits": [{"permits": 5, "period": "1m"}]}
            ]}
            """;

    /** Each request: path and header name, value pairs. */
    private static final List<String[]> REQUESTS = List.of(
            new String[] {"/api/ip", "X-Forwarded-For", CanaryKeys.IP},
            new String[] {"/api/ip", "X-Forwarded-For", CanaryKeys.IPV6},
            new String[] {"/api/keyed", "X-Api-Key", CanaryKeys.API_KEY, "X-Tenant", CanaryKeys.HEADER},
            new String[] {"/api/users/" + CanaryKeys.PATH},
            new String[] {"/api/search?tenant=" + CanaryKeys.QUERY},
            new String[] {"/api/login", "X-User", CanaryKeys.USER, "X-Forwarded-For", CanaryKeys.IP},
            new String[] {"/api/catalog", "X-Tenant", CanaryKeys.HEADER},
            new String[] {"/api/queue/" + CanaryKeys.PATH, "X-User", CanaryKeys.USER});

    @TempDir
    Path dir;

    /** Metrics as an application might extend them: this one fails on the rule {@code audited}, naming what it got. */
    private record FailingOnAudited(DecisionMetrics delegate) implements DecisionMetrics {
        @Override
        public void recorded(Evaluation evaluation, long decisionNanos) {
            if (evaluation.outcomes().stream().anyMatch(outcome -> outcome.rule().id().equals("audited"))) {
                throw new IllegalStateException("cannot record " + evaluation);
            }
            delegate.recorded(evaluation, decisionNanos);
        }

        @Override
        public void storeFailed(String ruleId) {
            delegate.storeFailed(ruleId);
        }
    }

    @Test
    void filter_canaryKeysThroughEveryOutcome_appearInNoLogMeterOrResponse() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<String> responses = new ArrayList<>();
        List<String> maps = new ArrayList<>();
        List<HazelcastCounterStore> cluster = ClusterSupport.startCluster(1, TimeSource.system());
        try (LogCapture logs = LogCapture.start()) {
            RateLimitFilter filter = new RateLimitFilter(FilterSettings.builder()
                    .rules("file:" + Files.writeString(dir.resolve("rules.json"), RULES))
                    .rulesReloadInterval(Duration.ZERO)
                    .storeProvider("hazelcast-client", Map.of(
                            "hazelcast-cluster-name", cluster.get(0).instance().getConfig().getClusterName(),
                            "hazelcast-members", ClusterSupport.address(cluster.get(0)))::get)
                    .failurePolicy(FailurePolicyStore.OnFailure.REJECT)
                    .storeTimeout(Duration.ofMillis(250))
                    .rejectionCache(0)  // every request asks the cluster, so each rule meets its failure
                    .trustedProxies(List.of("127.0.0.1"))
                    .metrics(new FailingOnAudited(new MicrometerDecisionMetrics(registry)))
                    .build());
            try (JettyServer server = JettyServer.start(50, blockingContext(filter))) {
                sendAll(server, 3, responses);
                HttpResponse<String> audited = server.get("/api/audited/" + CanaryKeys.PATH,
                        "X-Api-Key", CanaryKeys.API_KEY);
                assertThat(audited.headers().firstValue("X-RateLimit-Remaining")).as("counted despite the metrics")
                        .hasValue("4");
                maps.addAll(ClusterSupport.mapContents(cluster.get(0)));

                ClusterSupport.closeAll(cluster);
                sendAll(server, 1, responses);
                RateLimiter ownCounter = RateLimiter.builder().store(filter.store())
                        .policy(Algorithm.FIXED_WINDOW, Limit.of(5, Duration.ofMinutes(1))).build();
                assertThat(ownCounter.tryAcquire(CanaryKeys.API_KEY).allowed()).as("rejected by the failure policy")
                        .isFalse();
            }

            assertSoftly(soft -> {
                soft.assertThat(CanaryKeys.leaks(logs.records())).as("log records").isEmpty();
                soft.assertThat(CanaryKeys.leaks(CanaryKeys.meters(registry))).as("meters").isEmpty();
                soft.assertThat(CanaryKeys.leaks(responses)).as("responses").isEmpty();
                soft.assertThat(CanaryKeys.leaks(maps)).as("the cluster's maps").isEmpty();
            });
            assertThat(maps).as("the counters the requests made").anyMatch(entry -> entry.startsWith(
                    HazelcastCounterStore.DEFAULT_MAP_NAME + ": per-api-key@"));
            assertThat(String.join("\n", logs.records()))
                    .contains("Sluice could not record metrics for a GET request to servlet",
                            "cannot record Evaluation[", "RuleDecision[audited key #",
                            "Sluice delays requests to servlet");
            assertThat(registry.get(MicrometerDecisionMetrics.DECISIONS).tag("outcome", "rejected").counters())
                    .extracting(counter -> counter.getId().getTag("rule"))
                    .contains("per-ip", "per-api-key", "per-user", "per-tenant", "per-user-and-ip");
            assertThat(registry.get(MicrometerDecisionMetrics.DECISIONS).tag("outcome", "store-error").counters())
                    .extracting(counter -> counter.getId().getTag("rule"))
                    .contains("per-ip", "per-user", DecisionMetrics.NOT_A_RULE);
        } finally {
            ClusterSupport.closeAll(cluster);
        }
    }

    /**
     * The filter and {@link EchoServlet} without async support, so a queued request is delayed on its container
     * thread (and the filter warns once).
     */
    private static ServletContextHandler blockingContext(RateLimitFilter filter) {
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        FilterHolder filterHolder = new FilterHolder(filter);
        filterHolder.setAsyncSupported(false);
        context.addFilter(filterHolder, "/*", EnumSet.of(DispatcherType.REQUEST));
        ServletHolder servlet = new ServletHolder(new EchoServlet());
        servlet.setAsyncSupported(false);
        context.addServlet(servlet, "/*");
        return context;
    }

    /** Sends every request of {@link #REQUESTS} {@code times} times; keeps what Sluice put in each response. */
    private static void sendAll(JettyServer server, int times, List<String> responses) throws Exception {
        for (String[] request : REQUESTS) {
            String[] headers = Arrays.copyOfRange(request, 1, request.length);
            for (int i = 0; i < times; i++) {
                HttpResponse<String> response = server.get(request[0], headers);
                responses.add(CanaryKeys.rateLimitPart(response));
            }
        }
    }
}
