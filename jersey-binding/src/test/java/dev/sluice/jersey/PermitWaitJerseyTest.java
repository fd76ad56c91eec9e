package dev.sluice.jersey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ManualTimeSource;
import dev.sluice.annotation.RateLimited;
import dev.sluice.servlet.JettyServer;
import dev.sluice.servlet.JettyServers;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A resource method whose concurrency limit waits (issue 26), on a real Jetty 12 and Jersey: the binding blocks the
 * request's thread up to the wait (a {@code ContainerRequestFilter} cannot suspend), so a waiter passes when the
 * holder's permit is released, and is a 429 holding nothing when its wait ends by the manual clock.
 */
class PermitWaitJerseyTest {

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore local = new LocalCounterStore(time, 10_000, Runnable::run);
    private final RefusalCountingStore store = new RefusalCountingStore(local);

    /** One export at a time, others waiting up to 5 s: {@code /wait/ok} answers, {@code /wait/block} holds. */
    @Path("wait")
    public static class Exports {
        static volatile CountDownLatch entered = new CountDownLatch(1);
        static volatile CountDownLatch unblock = new CountDownLatch(1);

        @GET
        @Path("ok")
        @RateLimited(id = "export", concurrency = 1, permitWait = "5s", key = "constant")
        public String ok() {
            return "exported";
        }

        @GET
        @Path("block")
        @RateLimited(id = "export", concurrency = 1, permitWait = "5s", key = "constant")
        public String block() throws InterruptedException {
            entered.countDown();
            unblock.await(60, TimeUnit.SECONDS);
            return "exported late";
        }
    }

    @BeforeEach
    void latches() {
        Exports.entered = new CountDownLatch(1);
        Exports.unblock = new CountDownLatch(1);
    }

    @AfterEach
    void unblock() {
        Exports.unblock.countDown();
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 30 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private JettyServer start() throws Exception {
        ResourceConfig app = new ResourceConfig(Exports.class).register(RateLimitFeature.builder().store(store)
                .timeSource(time).build());
        return servers.add(JettyServer.start(context -> JerseyServlet.deploy(context, app)));
    }

    private static CompletableFuture<HttpResponse<String>> sendAsync(JettyServer server, String path) {
        return server.client().sendAsync(HttpRequest.newBuilder(server.uri(path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void resource_waiterBlocksUntilThePermitIsReleased_thenPasses() throws Exception {
        JettyServer server = start();
        CompletableFuture<HttpResponse<String>> holder = sendAsync(server, "/wait/block");
        assertThat(Exports.entered.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<HttpResponse<String>> waiter = sendAsync(server, "/wait/ok");
        await(() -> store.refused.get() >= 2);

        Exports.unblock.countDown();

        assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        HttpResponse<String> waited = waiter.get(30, TimeUnit.SECONDS);
        assertThat(waited.statusCode()).isEqualTo(200);
        assertThat(waited.body()).isEqualTo("exported");
        await(() -> local.permitsHeld() == 0);
    }

    @Test
    void resource_waitEnds_rejectsWithTheConcurrencyQuotaHoldingNothing() throws Exception {
        JettyServer server = start();
        CompletableFuture<HttpResponse<String>> holder = sendAsync(server, "/wait/block");
        assertThat(Exports.entered.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<HttpResponse<String>> waiter = sendAsync(server, "/wait/ok");
        await(() -> store.refused.get() >= 2);

        time.advance(Duration.ofSeconds(5));

        HttpResponse<String> rejected = waiter.get(30, TimeUnit.SECONDS);
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("RateLimit-Policy"))
                .contains("\"export:1 concurrent\";q=1;qu=\"concurrent-requests\"");
        assertThat(local.permitsHeld()).isEqualTo(1);
        Exports.unblock.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        await(() -> local.permitsHeld() == 0);
    }

    /** Counts the permits the store it wraps refused: a waiter is refused on arrival and by each retry. */
    private static final class RefusalCountingStore implements CounterStore {
        final AtomicInteger refused = new AtomicInteger();
        private final CounterStore delegate;

        RefusalCountingStore(CounterStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
            if (!(command instanceof Command.Acquire)) {
                return delegate.executeAsync(key, command);
            }
            return delegate.executeAsync(key, command).thenApply(held -> {
                if (!((Counted) held).decision().allowed()) {
                    refused.incrementAndGet();
                }
                return held;
            });
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
