package dev.sluice.servlet;

import static dev.sluice.servlet.PathBehaviourServlet.await;
import static dev.sluice.servlet.PathBehaviourServlet.sendAsync;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ManualTimeSource;
import dev.sluice.store.LocalCounterStore;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A concurrency rule in the filter on a real Jetty 12 (issue 26): a request's permit is released however the request
 * ends (completion, exception, asynchronous completion, time-out and error, a client that goes away), a chain that
 * never returns holds it no longer than its maximum hold, and a request over the limit gets a 429 with the draft's
 * concurrent-requests unit and no Retry-After. The permits live in a local store on a manual clock.
 */
class ConcurrencyFilterTest {

    private static final String ONE_AT_A_TIME = """
            {"rules": [{"id": "exports", "match": {"paths": ["/c/**"]}, "key": {"type": "constant"},
                        "concurrency": 1, "maxHold": "1m"}]}
            """;

    private static final String FOUR_AT_A_TIME = """
            {"rules": [{"id": "exports", "match": {"paths": ["/c/**"]}, "key": {"type": "constant"},
                        "concurrency": 4, "maxHold": "1m"}]}
            """;

    @TempDir
    Path dir;

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);
    private final PathBehaviourServlet servlet = new PathBehaviourServlet();

    @AfterEach
    void releaseBlocked() {
        servlet.unblock.countDown();
    }

    private JettyServer start(String rulesJson) throws Exception {
        RateLimitFilter filter = RulesFileFilters.of(dir, rulesJson, settings -> settings.store(store));
        return servers.add(JettyServer.start(context -> servlet.mount(context, filter, true)));
    }


    private void awaitNoPermitHeld() throws InterruptedException {
        await(() -> store.permitsHeld() == 0);
    }

    @Test
    void filter_requestCompletes_releasesItsPermit() throws Exception {
        JettyServer server = start(ONE_AT_A_TIME);

        for (int i = 0; i < 3; i++) {
            assertThat(server.get("/c/ok").statusCode()).isEqualTo(200);
        }

        awaitNoPermitHeld();
    }

    @Test
    void filter_requestInFlight_rejectsTheNextWithTheConcurrencyQuotaAndNoRetryAfter() throws Exception {
        JettyServer server = start(ONE_AT_A_TIME);
        CompletableFuture<HttpResponse<String>> blocked = sendAsync(server, "/c/block");
        servlet.entered.await(30, TimeUnit.SECONDS);

        HttpResponse<String> second = server.get("/c/ok");

        assertThat(second.statusCode()).isEqualTo(429);
        assertThat(second.headers().firstValue("RateLimit-Policy"))
                .contains("\"exports:1 concurrent\";q=1;qu=\"concurrent-requests\"");
        assertThat(second.headers().firstValue("RateLimit")).contains("\"exports:1 concurrent\";r=0");
        assertThat(second.headers().firstValue("Retry-After")).isEmpty();
        assertThat(second.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(second.body()).contains("\"violated-policies\":[\"exports:1 concurrent\"]")
                .doesNotContain("retryAfter");
        servlet.unblock.countDown();
        assertThat(blocked.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        awaitNoPermitHeld();
        assertThat(server.get("/c/ok").statusCode()).isEqualTo(200);
    }

    @Test
    void filter_servletThrows_releasesItsPermit() throws Exception {
        JettyServer server = start(ONE_AT_A_TIME);

        assertThat(server.get("/c/throw").statusCode()).isEqualTo(500);

        awaitNoPermitHeld();
        assertThat(server.get("/c/ok").statusCode()).isEqualTo(200);
    }

    @Test
    void filter_asyncRequestCompletes_releasesItsPermitOnCompletion() throws Exception {
        JettyServer server = start(ONE_AT_A_TIME);

        assertThat(server.get("/c/async-complete").statusCode()).isEqualTo(200);

        awaitNoPermitHeld();
        assertThat(server.get("/c/ok").statusCode()).isEqualTo(200);
    }

    @Test
    void filter_asyncRequestTimesOut_releasesItsPermit() throws Exception {
        JettyServer server = start(ONE_AT_A_TIME);

        assertThat(server.get("/c/async-timeout").statusCode()).isEqualTo(500);

        awaitNoPermitHeld();
        assertThat(server.get("/c/ok").statusCode()).isEqualTo(200);
    }

    @Test
    void filter_asyncDispatchThrows_releasesItsPermit() throws Exception {
        JettyServer server = start(ONE_AT_A_TIME);

        assertThat(server.get("/c/async-error").statusCode()).isEqualTo(500);

        awaitNoPermitHeld();
        assertThat(server.get("/c/ok").statusCode()).isEqualTo(200);
    }

    @Test
    void filter_clientDisconnects_releasesThePermitWhenTheServletNotices() throws Exception {
        JettyServer server = start(ONE_AT_A_TIME);
        server.getAndGoAway("/c/stream");

        awaitNoPermitHeld();
        assertThat(servlet.streamFailed.get()).isEqualTo(1);
        assertThat(server.get("/c/ok").statusCode()).isEqualTo(200);
    }

    @Test
    void filter_chainNeverReturns_permitReturnsAtItsMaxHold() throws Exception {
        JettyServer server = start(ONE_AT_A_TIME);
        sendAsync(server, "/c/block");
        servlet.entered.await(30, TimeUnit.SECONDS);
        assertThat(server.get("/c/ok").statusCode()).isEqualTo(429);

        time.advance(Duration.ofMinutes(1));

        assertThat(server.get("/c/ok").statusCode()).isEqualTo(200);
    }

    @Test
    void filter_soakOfEveryWayOfEnding_neverExceedsTheLimitAndEndsWithNoPermitHeld() throws Exception {
        JettyServer server = start(FOUR_AT_A_TIME);
        List<String> paths = List.of("/c/ok", "/c/throw", "/c/async-complete", "/c/async-error", "/c/slow");
        ExecutorService clients = Executors.newFixedThreadPool(16);
        AtomicInteger passed = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < 16; c++) {
                int client = c;
                done.add(clients.submit(() -> {
                    for (int i = 0; i < 40; i++) {
                        int status = server.get(paths.get((client + i) % paths.size())).statusCode();
                        (status == 429 ? rejected : passed).incrementAndGet();
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

        awaitNoPermitHeld();
        assertThat(servlet.mostInFlight.get()).isBetween(1, 4);
        assertThat(passed.get() + rejected.get()).isEqualTo(16 * 40);
        assertThat(passed.get()).isPositive();
    }

}
