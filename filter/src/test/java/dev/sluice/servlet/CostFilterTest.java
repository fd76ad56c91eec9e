package dev.sluice.servlet;

import static dev.sluice.servlet.PathBehaviourServlet.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ManualTimeSource;
import dev.sluice.engine.Evaluation;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.store.LocalCounterStore;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rule in tokens in the filter on a real Jetty 12 (issue 34): each request reserves its estimate and settles its
 * actual cost exactly once however it ends (completion, exception, asynchronous completion, time-out and error, a
 * client that goes away, a wait for a permit), from the response header (stripped unless kept), a request attribute
 * or the API; a missing estimate is a 400 that counts nothing; a debt refuses the next request until the
 * {@code Retry-After} it says. Counted by the filter's metrics (every reservation and settle) and by the store.
 */
class CostFilterTest {

    private static final String TOKENS = """
            {"rules": [{"id": "llm", "match": {"paths": ["/c/**"]}, "key": {"type": "constant"},
                        "algorithm": "fixed_window", "limits": [{"permits": 1000000, "period": "1h", "unit": "tokens"}],
                        "estimate": {"type": "header", "name": "X-Max-Tokens"},
                        "actual": {"type": "header", "name": "X-Tokens-Used"}}]}
            """;

    @TempDir
    Path dir;

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);
    private final PathBehaviourServlet servlet = new PathBehaviourServlet();
    private final Settles settles = new Settles();

    /** The reservations and settles the filter told, on any thread. */
    private static final class Settles implements DecisionMetrics {
        final AtomicLong reserved = new AtomicLong();
        final AtomicLong settled = new AtomicLong();
        final AtomicLong actual = new AtomicLong();
        final List<Long> each = java.util.Collections.synchronizedList(new ArrayList<>());

        @Override
        public void recorded(Evaluation evaluation, long decisionNanos) {
        }

        @Override
        public void storeFailed(String ruleId) {
        }

        @Override
        public void reserved(String ruleId, String unit, long estimate) {
            reserved.incrementAndGet();
        }

        @Override
        public void settled(String ruleId, String unit, long estimate, long cost) {
            settled.incrementAndGet();
            actual.addAndGet(cost);
            each.add(cost);
        }
    }

    @AfterEach
    void releaseBlocked() {
        servlet.unblock.countDown();
    }

    private JettyServer start(String rulesJson) throws Exception {
        RateLimitFilter filter = RulesFileFilters.of(dir, rulesJson, settings -> settings.store(store)
                .metrics(settles));
        return servers.add(JettyServer.start(context -> servlet.mount(context, filter, true)));
    }

    private static HttpResponse<String> get(JettyServer server, String path, long estimate) throws Exception {
        return server.get(path, "X-Max-Tokens", Long.toString(estimate));
    }

    /** Waits until every reservation the filter told of has settled. */
    private void awaitAllSettled() throws InterruptedException {
        await(() -> settles.settled.get() == settles.reserved.get());
    }

    /** The tokens left, as a request of one token sees them right after counting itself (it says it used none). */
    private long tokensLeftAfterOne(JettyServer server) throws Exception {
        HttpResponse<String> probe = get(server, "/c/ok?used=0", 1);
        Matcher remaining = Pattern.compile(";r=(\\d+)").matcher(probe.headers().firstValue("RateLimit")
                .orElseThrow());
        assertThat(remaining.find()).isTrue();
        return Long.parseLong(remaining.group(1));
    }

    @Test
    void filter_everyWayARequestEnds_settlesItsReservationOnceAtTheActualCostTheResponseSays() throws Exception {
        JettyServer server = start(TOKENS);
        List<String> ways = List.of("/c/ok", "/c/throw", "/c/async-complete", "/c/async-timeout", "/c/async-error",
                "/c/slow");

        for (String way : ways) {
            get(server, way + "?used=7", 100);
        }

        awaitAllSettled();
        assertThat(settles.reserved.get()).isEqualTo(ways.size());
        assertThat(settles.each).containsOnly(7L).hasSize(ways.size());
        assertThat(tokensLeftAfterOne(server)).isEqualTo(1_000_000 - 7 * ways.size() - 1);
    }

    @Test
    void filter_clientGoesAway_settlesWhenTheServletNotices() throws Exception {
        JettyServer server = start(TOKENS);
        server.getAndGoAway("/c/stream?used=5", "X-Max-Tokens", "50");

        await(() -> servlet.streamFailed.get() == 1);
        awaitAllSettled();
        assertThat(settles.each).containsExactly(5L);
    }

    @Test
    void filter_actualCostHeader_isStrippedUnlessTheRuleKeepsIt() throws Exception {
        JettyServer stripping = start(TOKENS);
        assertThat(get(stripping, "/c/ok?used=7", 100).headers().firstValue("X-Tokens-Used")).isEmpty();

        JettyServer keeping = start(TOKENS.replace("\"name\": \"X-Tokens-Used\"", "\"name\": \"X-Tokens-Used\","
                + " \"keep\": true"));
        HttpResponse<String> kept = get(keeping, "/c/ok?used=7", 100);
        assertThat(kept.headers().firstValue("X-Tokens-Used")).contains("7");
        assertThat(kept.headers().firstValue("RateLimit-Policy"))
                .contains("\"llm:1000000 tokens/1h\";q=1000000;qu=\"tokens\";w=3600");
        awaitAllSettled();
        assertThat(settles.each).containsExactly(7L, 7L);
    }

    @Test
    void filter_attributeOrTheApi_settleTheReservationTheApiFirst() throws Exception {
        JettyServer attributes = start(TOKENS.replace("\"type\": \"header\", \"name\": \"X-Tokens-Used\"",
                "\"type\": \"attribute\", \"name\": \"tokens\""));
        get(attributes, "/c/ok?said=9", 100);
        get(attributes, "/c/ok?settle=4&said=9", 100);

        awaitAllSettled();
        assertThat(settles.each).containsExactly(9L, 4L);
    }

    @Test
    void filter_requestSaysNothing_keepsItsEstimate() throws Exception {
        JettyServer server = start(TOKENS);

        get(server, "/c/ok", 40);

        awaitAllSettled();
        assertThat(settles.each).containsExactly(40L);
        assertThat(tokensLeftAfterOne(server)).isEqualTo(1_000_000 - 40 - 1);
    }

    @Test
    void filter_estimateMissing_answers400NamingItAndCountsNothing() throws Exception {
        JettyServer server = start(TOKENS);

        HttpResponse<String> refused = server.get("/c/ok?used=5");

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(refused.body()).isEqualTo("{\"type\":\"https://sluice.dev/problems/invalid-estimate\","
                + "\"title\":\"Invalid Estimate\",\"status\":400,\"detail\":\"The request has no header X-Max-Tokens;"
                + " rule 'llm' reserves it as the request's estimate in tokens, a whole number from 1 to 1000000."
                + " Nothing was counted.\"}");
        assertThat(refused.headers().firstValue("RateLimit")).isEmpty();
        assertThat(servlet.served.get()).isZero();
        assertThat(settles.reserved.get()).isZero();
    }

    @Test
    void filter_requestThatWaitedForAPermit_settlesWhenItEnds() throws Exception {
        JettyServer server = start(TOKENS.replace("\"algorithm\"", "\"concurrency\": 1, \"wait\": \"1m\","
                + " \"algorithm\""));
        CompletableFuture<HttpResponse<String>> holder = server.client().sendAsync(HttpRequest.newBuilder(
                server.uri("/c/block?used=2")).header("X-Max-Tokens", "10").build(),
                HttpResponse.BodyHandlers.ofString());
        servlet.entered.await(30, TimeUnit.SECONDS);
        CompletableFuture<HttpResponse<String>> waiter = server.client().sendAsync(HttpRequest.newBuilder(
                server.uri("/c/ok?used=3")).header("X-Max-Tokens", "10").build(),
                HttpResponse.BodyHandlers.ofString());
        await(() -> settles.reserved.get() == 2);

        servlet.unblock.countDown();

        assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        HttpResponse<String> waited = waiter.get(30, TimeUnit.SECONDS);
        assertThat(waited.statusCode()).isEqualTo(200);
        assertThat(waited.headers().firstValue("X-Tokens-Used")).as("stripped after the wait too").isEmpty();
        awaitAllSettled();
        assertThat(settles.each).containsExactlyInAnyOrder(2L, 3L);
    }

    @Test
    void filter_debt_refusesTheNextRequestUntilTheRetryAfterItSays() throws Exception {
        JettyServer server = start(TOKENS.replace("\"fixed_window\"", "\"token_bucket\"")
                .replace("\"permits\": 1000000, \"period\": \"1h\"", "\"permits\": 60, \"period\": \"1m\""));
        assertThat(get(server, "/c/ok?used=90", 10).statusCode()).isEqualTo(200);
        awaitAllSettled();

        // 90 of a full bucket of 60: 30 owed; the next 10 need 40 tokens of refill at one a second.
        HttpResponse<String> refused = get(server, "/c/ok?used=1", 10);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).contains("40");
        assertThat(refused.headers().firstValue("RateLimit-Policy"))
                .contains("\"llm:60 tokens/1m\";q=60;qu=\"tokens\";w=60");
        time.advance(Duration.ofSeconds(40).minusNanos(1));
        assertThat(get(server, "/c/ok?used=1", 10).statusCode()).isEqualTo(429);
        time.advance(Duration.ofNanos(1));
        assertThat(get(server, "/c/ok?used=1", 10).statusCode()).isEqualTo(200);
    }

    @Test
    void filter_actualCostHeaderAboveTheRulesMaximum_settlesAtTheMaximumAndLogsWithoutTheKey() throws Exception {
        JettyServer server = start("""
                {"rules": [{"id": "llm", "match": {"paths": ["/c/**"]}, "key": {"type": "header", "name": "X-Api-Key"},
                            "algorithm": "token_bucket",
                            "limits": [{"permits": 1000, "period": "1m", "unit": "tokens"}],
                            "estimate": {"type": "header", "name": "X-Max-Tokens"},
                            "actual": {"type": "header", "name": "X-Tokens-Used"}}]}""");
        try (LogCapture log = LogCapture.start()) {
            // The reproduction: 1,300,000,000,000 tokens said for a reservation of 1,000 (the capacity).
            assertThat(server.get("/c/ok?used=1300000000000", "X-Max-Tokens", "1000", "X-Api-Key", "key-holder-7")
                    .statusCode()).isEqualTo(200);
            awaitAllSettled();

            // Settled at the default maximum, 10 times the capacity: 9,000 owed, and the next 1,000 need 10,000
            // tokens of refill at 1,000 a minute.
            assertThat(settles.each).containsExactly(10_000L);
            HttpResponse<String> refused = server.get("/c/ok?used=1", "X-Max-Tokens", "1000", "X-Api-Key",
                    "key-holder-7");
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After")).contains("600");
            assertThat(log.records()).anySatisfy(record -> assertThat(record).contains("Sluice rule 'llm': an actual"
                    + " cost of 1300000000000 tokens is above the rule's maximum of 10000 (maxActual); settled at"
                    + " 10000"));
            assertThat(log.records()).noneMatch(record -> record.contains("key-holder-7"));
        }
        time.advance(Duration.ofMinutes(10).minusNanos(1));
        assertThat(server.get("/c/ok?used=1", "X-Max-Tokens", "1000", "X-Api-Key", "key-holder-7").statusCode())
                .isEqualTo(429);
        time.advance(Duration.ofNanos(1));
        assertThat(server.get("/c/ok?used=1", "X-Max-Tokens", "1000", "X-Api-Key", "key-holder-7").statusCode())
                .isEqualTo(200);
    }

    @Test
    void filter_actualCostBeyondALongOrAboveMaxActual_settlesAtTheRulesMaxActual() throws Exception {
        JettyServer server = start(TOKENS.replace("\"actual\"", "\"maxActual\": 2500, \"actual\"")
                .replace("\"name\": \"X-Max-Tokens\"}", "\"name\": \"X-Max-Tokens\", \"max\": 1000}"));

        get(server, "/c/ok?used=99999999999999999999999", 100);
        get(server, "/c/ok?used=2501", 100);
        get(server, "/c/ok?used=2500", 100);

        awaitAllSettled();
        assertThat(settles.each).containsExactly(2_500L, 2_500L, 2_500L);
        assertThat(tokensLeftAfterOne(server)).isEqualTo(1_000_000 - 3 * 2_500 - 1);
    }

    @Test
    void filter_soakOfEveryWayOfEnding_settlesEachOnceAndEndsWithNothingReserved() throws Exception {
        JettyServer server = start(TOKENS);
        List<String> ways = List.of("/c/ok", "/c/throw", "/c/async-complete", "/c/async-error", "/c/slow",
                "/c/async-timeout");
        ExecutorService clients = Executors.newFixedThreadPool(16);
        AtomicLong said = new AtomicLong();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < 16; c++) {
                int client = c;
                done.add(clients.submit(() -> {
                    Random random = new Random(client);
                    for (int i = 0; i < 40; i++) {
                        long used = random.nextInt(120);
                        said.addAndGet(used);
                        String path = ways.get((client + i) % ways.size()) + "?used=" + used;
                        try {
                            get(server, path, 100);
                        } catch (java.io.IOException e) {
                            throw new AssertionError("GET " + path, e);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get(5, TimeUnit.MINUTES);
            }
        } finally {
            clients.shutdownNow();
        }

        awaitAllSettled();
        assertThat(settles.reserved.get()).isEqualTo(16 * 40);
        assertThat(settles.each).hasSize(16 * 40);
        assertThat(settles.actual.get()).isEqualTo(said.get());
        assertThat(tokensLeftAfterOne(server)).isEqualTo(1_000_000 - said.get() - 1);
    }
}
