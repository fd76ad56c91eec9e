package dev.sluice.jersey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.annotation.RateLimited;
import dev.sluice.servlet.JettyServer;
import dev.sluice.servlet.JettyServers;
import dev.sluice.store.LocalCounterStore;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * A concurrency limit on a resource method (issue 26), on a real Jetty 12 and Jersey: the permit is released when the
 * resource returns, when it throws an exception no mapper takes and when its asynchronous response is resumed, and a
 * request over the limit gets the 429.
 */
class ConcurrencyJerseyTest {

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private final LocalCounterStore store = new LocalCounterStore();

    /** One export at a time: {@code /export/ok} answers, {@code /export/fail} throws. */
    @Path("export")
    public static class Exports {
        static final CountDownLatch entered = new CountDownLatch(1);
        static final CountDownLatch unblock = new CountDownLatch(1);

        @GET
        @Path("ok")
        @RateLimited(id = "export", concurrency = 1, key = "constant")
        public String ok() {
            return "exported";
        }

        @GET
        @Path("block")
        @RateLimited(id = "export", concurrency = 1, key = "constant")
        public String block() throws InterruptedException {
            entered.countDown();
            unblock.await(60, TimeUnit.SECONDS);
            return "exported late";
        }

        @GET
        @Path("async")
        @RateLimited(id = "export", concurrency = 1, key = "constant")
        public void async(@Suspended AsyncResponse response) {
            CompletableFuture.runAsync(() -> response.resume("exported later"));
        }

        @GET
        @Path("fail")
        @RateLimited(id = "export", concurrency = 1, key = "constant")
        public String fail() {
            throw new IllegalStateException("the export fails");
        }
    }

    /**
     * Waits, boundedly, until no permit is held: Jersey finishes a request (and releases) after its response has been
     * written, so the client may read it first. The bound is a time-out of the test, not a claim on speed.
     */
    private void awaitNoPermitHeld() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (store.permitsHeld() != 0) {
            assertThat(System.nanoTime()).as("no permit held within 30 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private JettyServer start() throws Exception {
        ResourceConfig app = new ResourceConfig(Exports.class).register(RateLimitFeature.builder().store(store)
                .build());
        return servers.add(JettyServer.start(context -> JerseyServlet.deploy(context, app)));
    }

    @Test
    void resource_returns_releasesItsPermit() throws Exception {
        JettyServer server = start();

        for (int i = 0; i < 3; i++) {
            HttpResponse<String> response = server.get("/export/ok");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("RateLimit"))
                    .contains("\"export:1 concurrent\";r=0");
        }

        awaitNoPermitHeld();
    }

    @Test
    void resource_asynchronousResponseResumed_releasesItsPermit() throws Exception {
        JettyServer server = start();

        for (int i = 0; i < 3; i++) {
            assertThat(server.get("/export/async").statusCode()).isEqualTo(200);
            // Released once Jersey finishes, by when the container may have recycled the request (read before).
            awaitNoPermitHeld();
        }
    }

    @Test
    void resource_throwsAnUnmappedException_releasesItsPermit() throws Exception {
        JettyServer server = start();

        assertThat(server.get("/export/fail").statusCode()).isEqualTo(500);

        awaitNoPermitHeld();
        assertThat(server.get("/export/ok").statusCode()).isEqualTo(200);
    }

    @Test
    void resource_oneInFlight_rejectsTheNextWithTheConcurrencyQuota() throws Exception {
        JettyServer server = start();
        CompletableFuture<HttpResponse<String>> blocked = server.client().sendAsync(
                HttpRequest.newBuilder(server.uri("/export/block")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(Exports.entered.await(30, TimeUnit.SECONDS)).isTrue();

        HttpResponse<String> rejected = server.get("/export/ok");

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("RateLimit-Policy"))
                .contains("\"export:1 concurrent\";q=1;qu=\"concurrent-requests\"");
        assertThat(rejected.headers().firstValue("Retry-After")).isEmpty();
        Exports.unblock.countDown();
        assertThat(blocked.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        // Released once Jersey finishes the request, which may be after its client has the response.
        awaitNoPermitHeld();
        assertThat(server.get("/export/ok").statusCode()).isEqualTo(200);
    }
}
