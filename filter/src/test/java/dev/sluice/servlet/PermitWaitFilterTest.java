package dev.sluice.servlet;

import static dev.sluice.servlet.PathBehaviourServlet.await;
import static dev.sluice.servlet.PathBehaviourServlet.sendAsync;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ManualTimeSource;
import dev.sluice.metrics.MicrometerDecisionMetrics;
import dev.sluice.store.LocalCounterStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waiting for a concurrency permit in the filter on a real Jetty 12 (issue 26): a waiter gets the permit a holder
 * releases, several waiters get it in the order they came, a wait that ends (by the manual clock) is a 429 holding
 * nothing, a client that goes away while waiting leaves no permit and no waiter (once its wait ends, or once it is
 * served and ends: Jetty notices an HTTP/1.1 client gone only when it reads or writes), and a soak of all of these
 * ends with none held and none waiting. The meters are read from a Micrometer registry.
 */
class PermitWaitFilterTest {

    private static final String ONE_WAITING = """
            {"rules": [{"id": "exports", "match": {"paths": ["/c/**"]}, "key": {"type": "constant"},
                        "concurrency": 1, "maxHold": "1m", "wait": "5s"}]}
            """;

    private static final String TWO_WAITING = """
            {"rules": [{"id": "exports", "match": {"paths": ["/c/**"]}, "key": {"type": "constant"},
                        "concurrency": 2, "maxHold": "1m", "wait": "5s"}]}
            """;

    @TempDir
    Path dir;

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PathBehaviourServlet servlet = new PathBehaviourServlet();
    private RateLimitFilter filter;

    @AfterEach
    void releaseBlocked() {
        servlet.unblock.countDown();
    }

    private JettyServer start(String rulesJson) throws Exception {
        return start(rulesJson, true);
    }

    private JettyServer start(String rulesJson, boolean asyncSupported) throws Exception {
        filter = RulesFileFilters.of(dir, rulesJson, settings -> settings.store(store).timeSource(time)
                .metrics(new MicrometerDecisionMetrics(registry)));
        return servers.add(JettyServer.start(context -> servlet.mount(context, filter, asyncSupported)));
    }


    private double counter(String name) {
        var counter = registry.find(name).tag("rule", "exports").counter();
        return counter == null ? 0 : counter.count();
    }

    private double held() {
        var gauge = registry.find(MicrometerDecisionMetrics.PERMITS_HELD).tag("rule", "exports").gauge();
        return gauge == null ? 0 : gauge.value();
    }

    private void awaitWaitsStarted(int count) throws InterruptedException {
        await(() -> counter(MicrometerDecisionMetrics.WAITS_STARTED) == count
                && filter.waitingForPermits() == count - counter(MicrometerDecisionMetrics.WAITS_GRANTED)
                        - counter(MicrometerDecisionMetrics.WAITS_TIMED_OUT));
    }

    private void awaitNothingHeldOrWaiting() throws InterruptedException {
        await(() -> store.permitsHeld() == 0 && filter.waitingForPermits() == 0 && held() == 0);
    }

    private CompletableFuture<HttpResponse<String>> holdThePermit(JettyServer server) throws InterruptedException {
        CompletableFuture<HttpResponse<String>> blocked = sendAsync(server, "/c/block");
        assertThat(servlet.entered.await(30, TimeUnit.SECONDS)).isTrue();
        return blocked;
    }

    @Test
    void filter_permitReleased_goesToTheWaiterWhichThenPasses() throws Exception {
        JettyServer server = start(ONE_WAITING);
        CompletableFuture<HttpResponse<String>> holder = holdThePermit(server);
        CompletableFuture<HttpResponse<String>> waiter = sendAsync(server, "/c/ok");
        awaitWaitsStarted(1);
        assertThat(held()).isEqualTo(1);

        servlet.unblock.countDown();

        assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        HttpResponse<String> waited = waiter.get(30, TimeUnit.SECONDS);
        assertThat(waited.statusCode()).isEqualTo(200);
        assertThat(waited.body()).isEqualTo("ok");
        assertThat(waited.headers().firstValue("RateLimit-Policy"))
                .contains("\"exports:1 concurrent\";q=1;qu=\"concurrent-requests\"");
        awaitNothingHeldOrWaiting();
        assertThat(counter(MicrometerDecisionMetrics.WAITS_GRANTED)).isEqualTo(1);
        assertThat(counter(MicrometerDecisionMetrics.WAITS_TIMED_OUT)).isZero();
    }

    @Test
    void filter_severalWaiters_getThePermitInTheOrderTheyCame() throws Exception {
        JettyServer server = start(ONE_WAITING);
        CompletableFuture<HttpResponse<String>> holder = holdThePermit(server);
        List<CompletableFuture<HttpResponse<String>>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiters.add(sendAsync(server, "/c/record?n=" + i));
            awaitWaitsStarted(i + 1);
        }

        servlet.unblock.countDown();

        assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        for (CompletableFuture<HttpResponse<String>> waiter : waiters) {
            assertThat(waiter.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(servlet.recorded).containsExactly("0", "1", "2", "3", "4");
        assertThat(servlet.mostInFlight.get()).isEqualTo(1);
        awaitNothingHeldOrWaiting();
        assertThat(counter(MicrometerDecisionMetrics.WAITS_GRANTED)).isEqualTo(5);
    }

    @Test
    void filter_waitEnds_rejectsWithTheConcurrencyQuotaAndHoldsNothing() throws Exception {
        JettyServer server = start(ONE_WAITING);
        CompletableFuture<HttpResponse<String>> holder = holdThePermit(server);
        CompletableFuture<HttpResponse<String>> waiter = sendAsync(server, "/c/ok");
        awaitWaitsStarted(1);

        time.advance(Duration.ofSeconds(5));

        HttpResponse<String> rejected = waiter.get(30, TimeUnit.SECONDS);
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("RateLimit")).contains("\"exports:1 concurrent\";r=0");
        assertThat(rejected.headers().firstValue("Retry-After")).isEmpty();
        assertThat(rejected.body()).contains("\"violated-policies\":[\"exports:1 concurrent\"]");
        assertThat(store.permitsHeld()).isEqualTo(1);
        assertThat(filter.waitingForPermits()).isZero();
        assertThat(counter(MicrometerDecisionMetrics.WAITS_TIMED_OUT)).isEqualTo(1);
        servlet.unblock.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        awaitNothingHeldOrWaiting();
        assertThat(servlet.served.get()).isEqualTo(1);
    }

    @Test
    void filter_notAsyncSupported_waitsOnTheContainerThreadWarningOnce() throws Exception {
        try (LogCapture logs = LogCapture.start()) {
            JettyServer server = start(ONE_WAITING, false);
            CompletableFuture<HttpResponse<String>> holder = holdThePermit(server);
            CompletableFuture<HttpResponse<String>> first = sendAsync(server, "/c/ok");
            awaitWaitsStarted(1);
            CompletableFuture<HttpResponse<String>> second = sendAsync(server, "/c/ok");
            awaitWaitsStarted(2);

            servlet.unblock.countDown();

            assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(second.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            awaitNothingHeldOrWaiting();
            assertThat(logs.records()).filteredOn(line -> line.contains("waits for concurrency permits to servlet"))
                    .hasSize(1).allMatch(line -> line.contains("mark the filter and the servlet async-supported"));
        }
    }

    /** Sends a request for {@code path} and closes the connection without reading the answer. */
    private static void leave(JettyServer server, String path) throws IOException {
        URI base = server.uri("/");
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + base.getHost() + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }
    }

    @Test
    void filter_clientGoesAwayWhileWaiting_leavesNoWaiterAndNoPermitOnceItsWaitEnds() throws Exception {
        JettyServer server = start(ONE_WAITING);
        CompletableFuture<HttpResponse<String>> holder = holdThePermit(server);
        leave(server, "/c/record?n=gone");
        awaitWaitsStarted(1);

        // Jetty notices an HTTP/1.1 client gone only when it reads or writes: the wait ends as the rule says.
        time.advance(Duration.ofSeconds(5));

        await(() -> filter.waitingForPermits() == 0);
        assertThat(store.permitsHeld()).isEqualTo(1);
        servlet.unblock.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        awaitNothingHeldOrWaiting();
        assertThat(servlet.recorded).doesNotContain("gone");
        assertThat(counter(MicrometerDecisionMetrics.WAITS_TIMED_OUT)).isEqualTo(1);
    }

    @Test
    void filter_clientGoneWhenItsPermitComes_isServedAndReleasesThePermit() throws Exception {
        JettyServer server = start(ONE_WAITING);
        CompletableFuture<HttpResponse<String>> holder = holdThePermit(server);
        leave(server, "/c/record?n=gone");
        awaitWaitsStarted(1);

        servlet.unblock.countDown();

        assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        await(() -> servlet.recorded.contains("gone"));
        awaitNothingHeldOrWaiting();
        assertThat(counter(MicrometerDecisionMetrics.WAITS_GRANTED)).isEqualTo(1);
    }

    @Test
    void filter_soakOfHoldersWaitersTimeOutsAndLeavers_endsWithNothingHeldOrWaiting() throws Exception {
        JettyServer server = start(TWO_WAITING);
        List<String> paths = List.of("/c/ok", "/c/throw", "/c/async-complete", "/c/slow", "/c/leave");
        ExecutorService clients = Executors.newFixedThreadPool(12);
        AtomicBoolean running = new AtomicBoolean(true);
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        Thread clock = new Thread(() -> {
            // Ends some waits: the manual clock jumps past them now and then.
            while (running.get()) {
                time.advance(Duration.ofSeconds(1));
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        clock.start();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < 12; c++) {
                int client = c;
                done.add(clients.submit(() -> {
                    for (int i = 0; i < 30; i++) {
                        String path = paths.get((client + i) % paths.size());
                        if (path.equals("/c/leave")) {
                            leave(server, "/c/slow");
                            continue;
                        }
                        statuses.merge(server.get(path).statusCode(), 1, Integer::sum);
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get(5, TimeUnit.MINUTES);
            }
        } finally {
            running.set(false);
            clock.join();
            clients.shutdownNow();
        }

        awaitNothingHeldOrWaiting();
        assertThat(servlet.mostInFlight.get()).isBetween(1, 2);
        // Served, the servlet's own failure (/c/throw), or over the limit: nothing else, such as a filter error.
        assertThat(statuses.keySet()).isSubsetOf(200, 500, 429).contains(200);
        assertThat(counter(MicrometerDecisionMetrics.WAITS_STARTED)).isGreaterThanOrEqualTo(
                counter(MicrometerDecisionMetrics.WAITS_GRANTED) + counter(MicrometerDecisionMetrics.WAITS_TIMED_OUT));
    }

}
