package dev.sluice.demo;

import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Map;

/**
 * The endpoints the demo limits. None of them knows about limits: the rules in {@code WEB-INF/sluice-rules.json}
 * match their paths, and the Sluice servlet filter in front of Jersey enforces them.
 *
 * <p>Where the Jersey binding (module {@code jersey-binding}, in progress) will be wired: each method here is to
 * carry {@code @RateLimited(rule = "<id>")} naming its rule in the rules file, so that the rule follows the
 * method rather than its path: {@link #hello} {@code hello-per-ip}, {@link #login} {@code login-per-user},
 * {@link #search} {@code search-by-cost}, {@link #reports} {@code reports-by-plan}, {@link #catalog}
 * {@code catalog-shadow}, {@link #order} {@code orders-queued}; the rules then drop their {@code match}. Until
 * then, the filter limits them by path. One instance per request (Jersey's default); stateless.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class ShowcaseResource {

    /** A public endpoint, limited per client IP (token bucket). */
    @GET
    @Path("hello")
    public Map<String, String> hello() {
        return Map.of("message", "Hello from Sluice");
    }

    /** A pretend login, limited per user name ({@code X-Username}, sliding log). */
    @POST
    @Path("login")
    public Map<String, Object> login(@HeaderParam("X-Username") String user) {
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

    /** Orders are queued: a burst is delayed to a steady rate (leaky bucket), and rejected past the queue. */
    @POST
    @Path("orders")
    public Map<String, String> order() {
        return Map.of("order", "accepted");
    }
}
