package dev.sluice.demo;

import dev.sluice.annotation.RateLimited;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * The endpoints the demo limits. Most know nothing about limits: the rules in {@code WEB-INF/sluice-rules.json}
 * match their paths, and the Sluice servlet filter in front of Jersey enforces them (the filter alone can queue
 * requests, which the leaky-bucket order endpoint needs). {@link #export} shows the other way: an
 * {@code @RateLimited} annotation, enforced by the Sluice Jersey binding ({@link DemoApplication}). One instance per
 * request (Jersey's default); stateless.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class ShowcaseResource {

    /** An export, limited by its annotation: 2 per minute per API key, counted by the Jersey binding. */
    @GET
    @Path("export")
    @RateLimited(id = "export", permits = 2, period = "1m", key = "header:X-Api-Key")
    public Map<String, String> export() {
        return Map.of("export", "widgets.csv", "status", "ready");
    }

    /** A public endpoint, limited per client IP (token bucket). */
    @GET
    @Path("hello")
    public Map<String, String> hello() {
        return Map.of("message", "Hello from Sluice");
    }

    /** A pretend login, limited per user name ({@code X-Username}, sliding log). */
    @POST
    @Path("login")
    public Map<String, Object> login(@HeaderParam("X-Username") @Nullable String user) {
        if (user == null || user.isBlank()) {
            throw new BadRequestException("send the user name in the X-Username header");
        }
        return Map.of("user", user, "loggedIn", true);
    }

    /** An expensive search: each request costs 2 permits. */
    @GET
    @Path("search")
    public Map<String, Object> search(@QueryParam("q") @DefaultValue("") String query) {
        return Map.of("query", query, "hits", List.of(query + " (1)", query + " (2)"));
    }

    /** Reports per API key, with a higher limit for {@code X-Plan: premium}. */
    @GET
    @Path("reports")
    public Map<String, String> reports(@HeaderParam("X-Plan") @DefaultValue("free") String plan) {
        return Map.of("plan", plan, "report", "42 widgets sold today");
    }

    /** A catalog under a shadow rule: counted and reported, never rejected. */
    @GET
    @Path("catalog")
    public Map<String, Object> catalog() {
        return Map.of("items", List.of("sluice gate", "weir", "lock"));
    }

    /** The most tokens a pretend completion writes: a model's own cap, when the request names none. */
    static final int MODEL_MAX_TOKENS = 1_000;

    /**
     * A pretend language-model completion: "generates" a random number of tokens, at most {@code X-Max-Tokens} (the
     * model's cap of {@value #MODEL_MAX_TOKENS} without one), and reports them in the body and in the response header
     * {@code X-Tokens-Used}, which the rule {@code completions-per-key} reads (and strips) to settle the request's
     * reservation: limited per API key in requests and in tokens per minute.
     */
    @POST
    @Path("completions")
    public Response complete(@HeaderParam("X-Max-Tokens") @Nullable String maxTokens) {
        int cap = MODEL_MAX_TOKENS;
        if (maxTokens != null && maxTokens.strip().matches("[0-9]{1,4}")) {
            cap = Math.max(1, Math.min(MODEL_MAX_TOKENS, Integer.parseInt(maxTokens.strip())));
        }
        int tokens = ThreadLocalRandom.current().nextInt(cap / 4 + 1, cap + 1);
        return Response.ok(Map.of("completion", "lorem ipsum ... (" + tokens + " tokens)", "tokens", tokens))
                .header("X-Tokens-Used", tokens).build();
    }

    /** Orders are queued: a burst is delayed to a steady rate (leaky bucket), and rejected past the queue. */
    @POST
    @Path("orders")
    public Map<String, String> order() {
        return Map.of("order", "accepted");
    }
}
