package dev.sluice.jersey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.annotation.RateLimited;
import dev.sluice.servlet.FilterSettings;
import dev.sluice.servlet.JettyServer;
import dev.sluice.servlet.JettyServers;
import dev.sluice.servlet.LogCapture;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.store.LocalCounterStore;
import jakarta.servlet.DispatcherType;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code @RateLimited} limit in tokens on resource methods (issue 34), on a real Jetty 12 and Jersey: each request
 * reserves its estimate and settles once when Jersey finishes it, at the actual cost its response header (stripped
 * unless kept), a request property or {@link RateLimitFeature#settle} says, however it finished (a response, a mapped
 * or unmapped exception, an asynchronous response resumed or timed out); a missing estimate is a 400. Counted by the
 * store, through what a probe request of one token sees remaining.
 */
class CostJerseyTest {

    private static final long LIMIT = 1_000_000;

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private final LocalCounterStore store = new LocalCounterStore();

    @Path("llm")
    public static class Llm {

        @GET
        @Path("header")
        @RateLimited(id = "llm", permits = LIMIT, period = "1h", unit = "tokens", key = "constant",
                algorithm = dev.sluice.algorithm.Algorithm.FIXED_WINDOW, estimate = "header:X-Max-Tokens",
                actualCost = "header:X-Tokens-Used")
        public Response header(@QueryParam("used") long used) {
            return Response.ok("generated").header("X-Tokens-Used", used).build();
        }

        @GET
        @Path("api")
        @RateLimited(id = "llm", permits = LIMIT, period = "1h", unit = "tokens", key = "constant",
                algorithm = dev.sluice.algorithm.Algorithm.FIXED_WINDOW, estimate = "header:X-Max-Tokens",
                actualCost = "header:X-Tokens-Used")
        public Response api(@QueryParam("used") long used, @Context ContainerRequestContext request) {
            RateLimitFeature.settle(request, used);
            return Response.ok("generated").header("X-Tokens-Used", used + 50).build();
        }

        @GET
        @Path("property")
        @RateLimited(id = "property", permits = LIMIT, period = "1h", unit = "tokens", key = "constant",
                algorithm = dev.sluice.algorithm.Algorithm.FIXED_WINDOW, estimate = "fixed:10",
                actualCost = "attribute:tokens")
        public String property(@QueryParam("used") long used, @Context ContainerRequestContext request) {
            request.setProperty("tokens", used);
            return "generated";
        }

        @GET
        @Path("fail")
        @RateLimited(id = "llm", permits = LIMIT, period = "1h", unit = "tokens", key = "constant",
                algorithm = dev.sluice.algorithm.Algorithm.FIXED_WINDOW, estimate = "header:X-Max-Tokens",
                actualCost = "header:X-Tokens-Used")
        public String fail() {
            throw new IllegalStateException("the model fails");
        }

        @GET
        @Path("mapped")
        @RateLimited(id = "llm", permits = LIMIT, period = "1h", unit = "tokens", key = "constant",
                algorithm = dev.sluice.algorithm.Algorithm.FIXED_WINDOW, estimate = "header:X-Max-Tokens",
                actualCost = "header:X-Tokens-Used")
        public String mapped() {
            throw new WebApplicationException(Response.status(418).header("X-Tokens-Used", 2).build());
        }

        @GET
        @Path("async")
        @RateLimited(id = "llm", permits = LIMIT, period = "1h", unit = "tokens", key = "constant",
                algorithm = dev.sluice.algorithm.Algorithm.FIXED_WINDOW, estimate = "header:X-Max-Tokens",
                actualCost = "header:X-Tokens-Used")
        public void async(@QueryParam("used") long used, @Suspended AsyncResponse response) {
            CompletableFuture.runAsync(() -> response.resume(Response.ok("later").header("X-Tokens-Used", used)
                    .build()));
        }

        @GET
        @Path("timeout")
        @RateLimited(id = "llm", permits = LIMIT, period = "1h", unit = "tokens", key = "constant",
                algorithm = dev.sluice.algorithm.Algorithm.FIXED_WINDOW, estimate = "header:X-Max-Tokens",
                actualCost = "header:X-Tokens-Used")
        public void timeout(@Suspended AsyncResponse response) {
            response.setTimeout(50, TimeUnit.MILLISECONDS);
        }

        @GET
        @Path("bucket")
        @RateLimited(id = "bucket", permits = 1000, period = "1m", unit = "tokens", key = "header:X-Api-Key",
                estimate = "fixed:1000", actualCost = "header:X-Tokens-Used")
        public Response bucket(@QueryParam("used") String used) {
            return Response.ok("generated").header("X-Tokens-Used", used).build();
        }

        @GET
        @Path("plain")
        public Response plain(@QueryParam("used") long used) {
            return Response.ok("generated").header("X-Tokens-Used", used).build();
        }

        @GET
        @Path("kept")
        @RateLimited(id = "kept", permits = LIMIT, period = "1h", unit = "tokens", key = "constant",
                estimate = "fixed:10", actualCost = "header:X-Tokens-Used", keepActualHeader = true)
        public Response kept() {
            return Response.ok("generated").header("X-Tokens-Used", 4).build();
        }
    }

    private JettyServer start() throws Exception {
        ResourceConfig app = new ResourceConfig(Llm.class).register(RateLimitFeature.builder().store(store).build());
        return servers.add(JettyServer.start(context -> JerseyServlet.deploy(context, app)));
    }

    private static HttpResponse<String> get(JettyServer server, String path, long estimate) throws Exception {
        return server.get(path, "X-Max-Tokens", Long.toString(estimate));
    }

    /**
     * Waits, boundedly, until a probe of one token (which settles at nothing) sees {@code used} tokens spent: Jersey
     * finishes a request after writing its response, so the client may read it before the request settles. The bound
     * is a time-out of the test, not a claim on speed.
     */
    private static void awaitSpent(JettyServer server, long used) throws Exception {
        awaitRemaining(server, "/llm/header?used=0", 1, LIMIT - used - 1);
    }

    /** Waits, boundedly, until a probe of {@code path} with {@code estimate} sees {@code expected} remaining. */
    private static void awaitRemaining(JettyServer server, String path, long estimate, long expected)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long remaining = -1;
        while (remaining != expected) {
            assertThat(System.nanoTime()).as("%d remaining within 30 s, %d seen", expected, remaining)
                    .isLessThan(deadline);
            Matcher r = Pattern.compile(";r=(\\d+)").matcher(get(server, path, estimate).headers()
                    .firstValue("RateLimit").orElseThrow());
            assertThat(r.find()).isTrue();
            remaining = Long.parseLong(r.group(1));
        }
    }

    @Test
    void resource_actualCostAboveTheRulesMaximum_settlesAtTheMaximumAndLogsWithoutTheKey() throws Exception {
        JettyServer server = start();
        try (LogCapture log = LogCapture.start()) {
            assertThat(server.get("/llm/bucket?used=1300000000000", "X-Api-Key", "key-holder-9").statusCode())
                    .isEqualTo(200);

            // Settled at 10 times the capacity, 10,000: the next 1,000 need 10,000 tokens of refill at 1,000 a
            // minute, about 600 s (a refused request counts nothing, so the probe waits for the settle to land).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long retryAfter = 0;
            while (retryAfter < 590) {
                assertThat(System.nanoTime()).as("the settle within 30 s, Retry-After %d seen", retryAfter)
                        .isLessThan(deadline);
                HttpResponse<String> refused = server.get("/llm/bucket?used=1", "X-Api-Key", "key-holder-9");
                assertThat(refused.statusCode()).isEqualTo(429);
                retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
            }
            assertThat(retryAfter).isLessThanOrEqualTo(600);
            assertThat(log.records()).anySatisfy(record -> assertThat(record).contains("Sluice rule 'bucket': an"
                    + " actual cost of 1300000000000 tokens is above the rule's maximum of 10000 (maxActual)"));
            assertThat(log.records()).noneMatch(record -> record.contains("key-holder-9"));
        }
    }

    @Test
    void resource_actualCostProperty_settlesTheReservation() throws Exception {
        JettyServer server = start();

        get(server, "/llm/property?used=4", 10);

        // A probe reserves its fixed 10 and says 0: once the first settled, it sees 4 and its own 10 spent.
        awaitRemaining(server, "/llm/property?used=0", 10, LIMIT - 4 - 10);
    }

    @Test
    void resource_everyWayJerseyFinishes_settlesOnceAtTheActualCostOrTheEstimate() throws Exception {
        JettyServer server = start();

        assertThat(get(server, "/llm/header?used=7", 100).statusCode()).isEqualTo(200);
        assertThat(get(server, "/llm/api?used=5", 100).statusCode()).as("the API before the header")
                .isEqualTo(200);
        assertThat(get(server, "/llm/async?used=3", 100).statusCode()).isEqualTo(200);
        assertThat(get(server, "/llm/fail", 20).statusCode()).as("unmapped: the estimate").isEqualTo(500);
        assertThat(get(server, "/llm/mapped", 100).statusCode()).as("a mapped response says 2").isEqualTo(418);
        assertThat(get(server, "/llm/timeout", 30).statusCode()).as("timed out: the estimate").isEqualTo(503);

        awaitSpent(server, 7 + 5 + 3 + 20 + 2 + 30);
    }

    /**
     * A rule of the servlet filter's rules file on a method the binding does not filter: the filter settles it, at the
     * header it captured from Jersey's response, and the binding, which ends only what it evaluated, leaves it alone.
     */
    @Test
    void filterInFront_ruleOnAMethodTheBindingDoesNotFilter_settlesAtTheHeaderJerseyWrote(
            @TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path rules = Files.writeString(dir.resolve("rules.json"), """
                {"rules": [{"id": "plain", "match": {"paths": ["/llm/plain"]}, "key": {"type": "constant"},
                            "algorithm": "fixed_window",
                            "limits": [{"permits": 1000, "period": "1h", "unit": "tokens"}],
                            "estimate": {"type": "fixed", "value": 100},
                            "actual": {"type": "header", "name": "X-Tokens-Used"}}]}""");
        RateLimitFilter filter = new RateLimitFilter(FilterSettings.builder().rules("file:" + rules)
                .rulesReloadInterval(Duration.ZERO).store(store).build());
        JettyServer server = servers.add(JettyServer.start(context -> {
            context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
            JerseyServlet.deploy(context, new ResourceConfig(Llm.class).register(RateLimitFeature.builder()
                    .store(store).build()));
        }));

        HttpResponse<String> first = server.get("/llm/plain?used=30");

        assertThat(first.headers().firstValue("X-Tokens-Used")).isEmpty();
        // A probe reserves its 100 and says 0: once the first settled at 30, it sees 30 and its own 100 spent.
        awaitRemaining(server, "/llm/plain?used=0", 100, 1_000 - 30 - 100);
    }

    @Test
    void resource_actualCostHeader_isStrippedUnlessKept() throws Exception {
        JettyServer server = start();

        HttpResponse<String> stripped = get(server, "/llm/header?used=7", 100);
        assertThat(stripped.headers().firstValue("X-Tokens-Used")).isEmpty();
        assertThat(stripped.headers().firstValue("RateLimit-Policy"))
                .contains("\"llm:1000000 tokens/1h\";q=1000000;qu=\"tokens\";w=3600");
        assertThat(get(server, "/llm/kept", 100).headers().firstValue("X-Tokens-Used")).contains("4");
    }

    @Test
    void resource_estimateMissing_answers400AndCountsNothing() throws Exception {
        JettyServer server = start();

        HttpResponse<String> refused = server.get("/llm/header?used=7");

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("\"type\":\"https://sluice.dev/problems/invalid-estimate\"")
                .contains("The request has no header X-Max-Tokens");
        awaitSpent(server, 0);
    }
}
