package dev.sluice.demo;

import static dev.sluice.demo.DemoHttp.json;
import static dev.sluice.demo.DemoHttp.total;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.demo.launcher.DemoLauncher;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The demo as a newcomer meets it: one instance started by the launcher, every showcased rule of
 * {@code WEB-INF/sluice-rules.json}, the limiter service and the stats, over real HTTP. Each test is its own client
 * (an {@code X-Forwarded-For} address, which the demo trusts from loopback, or its own user and API key), so the
 * tests do not share counters.
 */
@Tag("cluster")
class DemoApplicationTest {

    private static DemoLauncher.RunningDemo demo;
    private static DemoHttp http;

    @BeforeAll
    static void start() throws Exception {
        demo = DemoLauncher.start(DemoInstances.cluster(1).get(0));
        http = new DemoHttp(demo.uri());
    }

    @AfterAll
    static void stop() throws Exception {
        if (demo != null) {
            demo.close();
        }
    }

    private static String[] client(String address) {
        return new String[] {"X-Forwarded-For", address};
    }

    @Test
    void hello_tokenBucketPerClientIp_fivePassThenRejectedWithRetryAfter() throws Exception {
        for (int remaining = 4; remaining >= 0; remaining--) {
            HttpResponse<String> response = http.get("/api/hello", client("198.51.100.1"));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue(Integer.toString(remaining));
        }
        HttpResponse<String> rejected = http.get("/api/hello", client("198.51.100.1"));
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
        assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(rejected.body()).contains("\"policies\":[\"hello-per-ip:5/30s\"]");

        assertThat(http.get("/api/hello", client("198.51.100.2")).statusCode()).as("another client").isEqualTo(200);
    }

    @Test
    void login_fivePerMinutePerUserName_sixthRejectedWithTheRulesMessage() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(http.post("/api/login", "X-Username", "ada-login-test").statusCode()).isEqualTo(200);
        }
        HttpResponse<String> rejected = http.post("/api/login", "X-Username", "ada-login-test");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.body()).contains("Too many login attempts for this user");

        assertThat(http.post("/api/login", "X-Username", "grace-login-test").statusCode()).isEqualTo(200);
        assertThat(http.post("/api/login").statusCode()).as("no user name: not counted, refused by the resource")
                .isEqualTo(400);
    }

    @Test
    void export_annotatedMethod_limitedByTheJerseyBinding() throws Exception {
        for (int remaining = 1; remaining >= 0; remaining--) {
            HttpResponse<String> response = http.get("/api/export", "X-Api-Key", "export-test-key");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue(Integer.toString(remaining));
        }
        HttpResponse<String> rejected = http.get("/api/export", "X-Api-Key", "export-test-key");
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.body()).contains("\"policies\":[\"export:2/1m\"]");
        assertThat(http.get("/api/export", "X-Api-Key", "another-key").statusCode()).isEqualTo(200);
    }

    @Test
    void search_costsTwoPermits_fiveSearchesFitInTen() throws Exception {
        HttpResponse<String> first = http.get("/api/search?q=gates", client("198.51.100.3"));
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("8");
        for (int i = 0; i < 4; i++) {
            assertThat(http.get("/api/search?q=gates", client("198.51.100.3")).statusCode()).isEqualTo(200);
        }
        assertThat(http.get("/api/search?q=gates", client("198.51.100.3")).statusCode()).isEqualTo(429);
    }

    @Test
    void completions_tokensPerKey_reserveTheEstimateAndSettleWhatTheModelWrote() throws Exception {
        HttpResponse<String> first = http.post("/api/completions", "X-Api-Key", "tokens-key", "X-Max-Tokens", "400");

        assertThat(first.statusCode()).isEqualTo(200);
        long tokens = json(first).get("tokens").asLong();
        assertThat(tokens).isBetween(101L, 400L);
        assertThat(first.headers().firstValue("X-Tokens-Used")).as("read and stripped by the filter").isEmpty();
        assertThat(first.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(policy -> assertThat(policy)
                .contains("\"completions-per-key:2000 tokens/1m\";q=2000;qu=\"tokens\";w=60"));
        assertThat(first.headers().firstValue("RateLimit")).hasValueSatisfying(rateLimit -> assertThat(rateLimit)
                .contains("\"completions-per-key:2000 tokens/1m\";r=1600"));
    }

    @Test
    void completions_withoutAnEstimate_reserveTheDefaultAndTheModelsExcessIsADebt() throws Exception {
        // No X-Max-Tokens: 200 reserved, and the model writes 251 to 1000, each a debt: 2000 a minute run out first.
        long reserved = http.ruleStats("completions-per-key").path("costs").path(0).path("reserved").asLong();
        HttpResponse<String> answer = null;
        for (int i = 0; i < 10; i++) {
            answer = http.post("/api/completions", "X-Api-Key", "debt-key");
            if (answer.statusCode() == 429) {
                break;
            }
            // The request settles once the filter's chain returns, which may be after the client has its response.
            long expected = reserved += 200;
            http.ruleStatsOnce("completions-per-key", stats -> stats.path("costs").path(0).path("reserved")
                    .asLong() == expected && stats.path("costs").path(0).path("outstanding").asLong() == 0);
        }

        assertThat(answer.statusCode()).isEqualTo(429);
        assertThat(json(answer).get("policies").get(0).asText()).isEqualTo("completions-per-key:2000 tokens/1m");
        assertThat(answer.headers().firstValue("Retry-After")).isPresent();
    }

    @Test
    void reports_premiumPlanHeader_getsTenInsteadOfThree() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(http.get("/api/reports", "X-Api-Key", "free-key").statusCode()).isEqualTo(200);
        }
        assertThat(http.get("/api/reports", "X-Api-Key", "free-key").statusCode()).isEqualTo(429);

        for (int i = 0; i < 10; i++) {
            HttpResponse<String> premium = http.get("/api/reports", "X-Api-Key", "premium-key", "X-Plan", "premium");
            assertThat(premium.statusCode()).isEqualTo(200);
            assertThat(premium.headers().firstValue("X-RateLimit-Limit")).hasValue("10");
        }
        assertThat(http.get("/api/reports", "X-Api-Key", "premium-key", "X-Plan", "premium").statusCode())
                .isEqualTo(429);
    }

    @Test
    void catalog_shadowRule_neverRejectsButCountsWouldBeRejections() throws Exception {
        for (int i = 0; i < 6; i++) {
            assertThat(http.get("/api/catalog", client("198.51.100.5")).statusCode()).isEqualTo(200);
        }
        JsonNode stats = http.ruleStatsOnce("catalog-shadow",
                rule -> total(rule, "allowed") + total(rule, "shadowRejected") == 6);
        assertThat(stats.path("mode").asText()).isEqualTo("shadow");
        assertThat(total(stats, "shadowRejected")).isEqualTo(3);
        assertThat(total(stats, "rejected")).isZero();
    }

    @Test
    void orders_leakyBucketBurst_queuesSomeAndRejectsPastTheQueue() throws Exception {
        int burst = 12;
        List<CompletableFuture<Integer>> statuses = new ArrayList<>();
        ExecutorService senders = Executors.newFixedThreadPool(burst);
        try {
            for (int i = 0; i < burst; i++) {
                statuses.add(CompletableFuture.supplyAsync(() -> status("/api/orders", "198.51.100.6"), senders));
            }
            List<Integer> answered = statuses.stream().map(CompletableFuture::join).toList();
            assertThat(answered).containsOnly(200, 429).contains(200, 429);
        } finally {
            senders.shutdownNow();
        }
        JsonNode stats = http.ruleStatsOnce("orders-queued",
                rule -> total(rule, "allowed") + total(rule, "delayed") + total(rule, "rejected") == burst);
        assertThat(total(stats, "delayed")).as("held for their slot").isPositive();
        assertThat(total(stats, "rejected")).as("past the queue").isPositive();
        assertThat(total(stats, "allowed") + total(stats, "delayed") + total(stats, "rejected")).isEqualTo(burst);
    }

    private static int status(String path, String clientAddress) {
        try {
            return http.post(path, client(clientAddress)).statusCode();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void limiterService_incrementUntilFull_thenDelayTellsWhenTheNextFits() throws Exception {
        assertThat(json(http.get("/api/limits/nightly-export/delay")).path("delayMs").asLong()).isZero();
        for (int remaining = 2; remaining >= 0; remaining--) {
            HttpResponse<String> counted = http.post("/api/limits/nightly-export/increment",
                    DemoHttp.SERVICE_CLIENT);
            assertThat(counted.statusCode()).isEqualTo(200);
            assertThat(json(counted).path("counted").asBoolean()).isTrue();
            assertThat(json(counted).path("remaining").asLong()).isEqualTo(remaining);
        }
        HttpResponse<String> refused = http.post("/api/limits/nightly-export/acquire?maxWaitMs=0",
                DemoHttp.SERVICE_CLIENT);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(json(refused).path("granted").asBoolean()).isFalse();
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();

        JsonNode delay = json(http.get("/api/limits/nightly-export/delay"));
        assertThat(delay.path("id").asText()).isEqualTo("nightly-export");
        assertThat(delay.path("remaining").asLong()).isZero();
        assertThat(delay.path("delayMs").asLong()).as("within the 10 s window").isBetween(1L, 10_000L);
        assertThat(delay.path("nextAt").asLong() - delay.path("delayMs").asLong())
                .as("now, on the demo's clock").isCloseTo(System.currentTimeMillis(), within(60_000L));
        assertThat(delay.has("counted")).isFalse();
    }

    @Test
    void limiterService_untouchedLimit_fitsNowWithAllPermits() throws Exception {
        JsonNode delay = json(http.get("/api/limits/partner-api/delay"));
        assertThat(delay.path("delayMs").asLong()).isZero();
        assertThat(delay.path("remaining").asLong()).isEqualTo(10);
        assertThat(delay.path("limit").asLong()).isEqualTo(10);
    }

    @Test
    void limiterService_unknownId_notFound() throws Exception {
        HttpResponse<String> response = http.get("/api/limits/no-such-limit/delay");
        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(json(response).path("detail").asText()).contains("no-such-limit");
    }

    @Test
    void limiterService_operationsWithoutToken_areNotThere() throws Exception {
        assertThat(http.post("/api/limits/partner-api/reset", DemoHttp.SERVICE_CLIENT).statusCode())
                .isEqualTo(404);
        assertThat(http.get("/api/limits/openapi.json").statusCode()).isEqualTo(200);
    }

    @Test
    void stats_showTheStoresHealth() throws Exception {
        JsonNode store = json(http.get("/api/stats")).path("store");

        assertThat(store.path("mode").asText()).isEqualTo("hazelcast-member");
        assertThat(store.path("membersSeen").asInt()).isEqualTo(1);
        assertThat(store.at("/lastMinute/failed").isNumber()).as("failed in the last minute, a number").isTrue();
        assertThat(store.at("/lastMinute/failed").asLong()).isZero();
    }

    @Test
    void stats_showWhatTheFilterLimitsWith() throws Exception {
        JsonNode filter = json(http.get("/api/stats")).path("filter");

        assertThat(filter.path("component").asText()).isEqualTo("Sluice filter 'sluice'");
        assertThat(filter.path("store").asText()).isEqualTo("hazelcast-member");
        assertThat(filter.path("membersSeen").asInt()).isEqualTo(1);
        assertThat(filter.path("rules").asInt()).isPositive();
        assertThat(filter.path("rulesSource").asText()).isEqualTo("/WEB-INF/sluice-rules.json");
        assertThat(filter.path("failurePolicy").asText()).as("the default").isEqualTo("local");
        assertThat(filter.path("storeTimeout").asText()).isEqualTo("2s");
        assertThat(filter.path("headers").asText()).isEqualTo("both");
    }

    @Test
    void stats_neverShowKeysInClear() throws Exception {
        // Past login-per-user's 5 per minute: the stats show a rule's most limited keys.
        for (int i = 0; i < 6; i++) {
            http.post("/api/login", "X-Username", "secret-user-name");
        }
        http.get("/api/hello", client("203.0.113.99"));

        String stats = http.get("/api/stats").body();
        assertThat(stats).contains("\"login-per-user\"", "\"hello-per-ip\"")
                .doesNotContain("secret-user-name", "203.0.113.99", "127.0.0.1");
        JsonNode keys = http.ruleStats("login-per-user").path("keys");
        assertThat(keys).isNotEmpty();
        keys.forEach(key -> assertThat(key.path("key").asText()).matches("#[0-9a-f]{8}"));
    }

    @Test
    void livePage_isServedAtTheRoot() throws Exception {
        HttpResponse<String> page = http.get("/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>Sluice demo", "app.js");
        assertThat(http.get("/app.js").statusCode()).isEqualTo(200);
    }
}
