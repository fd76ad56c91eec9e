package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.demo.launcher.DemoLauncher;
import dev.sluice.demo.launcher.DemoOptions;
import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.servlet.CanaryKeys;
import dev.sluice.servlet.LogCapture;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Keys never leave the demo in clear: one instance started by the launcher gets requests on every showcased rule
 * whose keys are {@link CanaryKeys} (client addresses through {@code X-Forwarded-For}, a user name, API keys, a
 * spoofable plan header), over real HTTP, past their limits (each kind in one burst, so that the queued rule's queue
 * overflows too: every kind but the shadow rule's meets a 429); then its Hazelcast member shuts down and the same
 * requests meet the failure policy. No log record (from the first request on: Sluice's at every level, Hazelcast's
 * at {@code INFO}, Jetty's as the launcher sets them), no Sluice response part and no byte of the stats endpoint
 * or of the console's JSON (with the cluster, then without it) holds a canary, while both show the keys, masked.
 */
@Tag("cluster")
class KeysNotInClearDemoTest {

    /** Each request: method, path and header name, value pairs. */
    private static final List<String[]> REQUESTS = List.of(
            new String[] {"GET", "/api/hello", "X-Forwarded-For", CanaryKeys.IP},
            new String[] {"GET", "/api/hello", "X-Forwarded-For", CanaryKeys.IPV6},
            new String[] {"POST", "/api/login", "X-Username", CanaryKeys.USER},
            new String[] {"GET", "/api/search?q=" + CanaryKeys.QUERY, "X-Forwarded-For", CanaryKeys.IP},
            new String[] {"GET", "/api/reports", "X-Api-Key", CanaryKeys.API_KEY, "X-Plan", CanaryKeys.HEADER},
            new String[] {"GET", "/api/catalog", "X-Forwarded-For", CanaryKeys.IP},
            new String[] {"POST", "/api/orders", "X-Forwarded-For", CanaryKeys.IPV6},
            new String[] {"GET", "/api/export", "X-Api-Key", CanaryKeys.API_KEY});

    /** The path of the shadow-mode rule's requests: never rejected. */
    private static final String SHADOW_PATH = "/api/catalog";

    private static final int OVER_EVERY_LIMIT = 6;

    @Test
    void demo_canaryKeysPastLimitsAndClusterLoss_appearInNoLogResponseOrStats() throws Exception {
        DemoOptions options = DemoInstances.cluster(1).get(0);
        List<String> responses = new ArrayList<>();
        List<List<Integer>> statusesPerRequest = new ArrayList<>();
        // The demo first: the launcher sets its log levels as it loads, and the capture opens and restores them.
        try (DemoLauncher.RunningDemo demo = DemoLauncher.start(options); LogCapture logs = LogCapture.start()) {
            DemoHttp http = new DemoHttp(demo.uri());
            for (String[] request : REQUESTS) {
                List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
                for (int i = 0; i < OVER_EVERY_LIMIT; i++) {
                    burst.add(http.sendAsync(request[0], request[1], headers(request)));
                }
                List<Integer> statuses = new ArrayList<>();
                for (CompletableFuture<HttpResponse<String>> sent : burst) {
                    HttpResponse<String> response = sent.join();
                    statuses.add(response.statusCode());
                    responses.add(CanaryKeys.rateLimitPart(response));
                }
                statusesPerRequest.add(statuses);
            }
            String authorization = "Bearer " + demo.consoleToken();
            ClusterSupport.await(() -> console(http, authorization).contains("\"limited\""), Duration.ofSeconds(30),
                    "the limited keys in the console");
            String console = console(http, authorization);
            member(options.clusterName()).shutdown();
            for (String[] request : REQUESTS) {
                responses.add(CanaryKeys.rateLimitPart(send(http, request)));
            }
            String stats = http.get("/api/stats").body();
            String consoleAlone = console(http, authorization);

            assertSoftly(soft -> {
                soft.assertThat(CanaryKeys.leaks(logs.records())).as("log records").isEmpty();
                soft.assertThat(CanaryKeys.leaks(responses)).as("responses").isEmpty();
                soft.assertThat(CanaryKeys.leaks(List.of(stats))).as("stats").isEmpty();
                soft.assertThat(CanaryKeys.leaks(List.of(console, consoleAlone))).as("console").isEmpty();
            });
            assertSoftly(soft -> {
                for (int i = 0; i < REQUESTS.size(); i++) {
                    String[] request = REQUESTS.get(i);
                    if (!request[1].equals(SHADOW_PATH)) {
                        soft.assertThat(statusesPerRequest.get(i)).as("past its limit: " + String.join(" ", request))
                                .contains(429);
                    }
                }
            });
            assertThat(DemoHttp.json(http.get("/api/stats")).path("rules"))
                    .extracting(rule -> rule.path("id").asText())
                    .contains("hello-per-ip", "login-per-user", "search-by-cost", "reports-by-plan", "catalog-shadow",
                            "orders-queued", "export");
            assertThat(stats).containsPattern("\"key\":\"#[0-9a-f]{8}\"");
            assertThat(console).containsPattern("\"key\":\"#[0-9a-f]{8}\"");
            assertThat(consoleAlone).contains("\"clusterUnreachable\":true")
                    .containsPattern("\"key\":\"#[0-9a-f]{8}\"");
        }
    }

    /** The console's {@code GET console/cluster} answer. */
    private static String console(DemoHttp http, String authorization) {
        try {
            HttpResponse<String> answer = http.get("/api/console/cluster", "Authorization", authorization);
            assertThat(answer.statusCode()).isEqualTo(200);
            return answer.body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static HttpResponse<String> send(DemoHttp http, String[] request) throws Exception {
        return http.send(request[0], request[1], headers(request));
    }

    private static String[] headers(String[] request) {
        return Arrays.copyOfRange(request, 2, request.length);
    }

    /** This JVM's Hazelcast member of the demo's cluster. */
    private static HazelcastInstance member(String clusterName) {
        return Hazelcast.getAllHazelcastInstances().stream()
                .filter(instance -> instance.getConfig().getClusterName().equals(clusterName))
                .findFirst().orElseThrow();
    }
}
