package dev.sluice.demo;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sluice.Decision;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.store.CounterStore;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;

/**
 * The limiter as a service, for clients in any language: {@code POST /api/limits/{id}/increment} counts one request
 * made now, {@code GET /api/limits/{id}/delay} tells how long until the next request fits (0: now). The limits come
 * from {@link ServiceLimitsListener#LOCATION}; they count in the Sluice filter's store
 * ({@link RateLimitFilter#STORE_ATTRIBUTE}), so every instance of a cluster shares them. Durations are in whole
 * milliseconds, rounded up. One instance per request (Jersey's default); stateless.
 */
@Path("/limits/{id}")
@Produces(MediaType.APPLICATION_JSON)
public class LimiterServiceResource {

    private static final long NANOS_PER_MILLI = 1_000_000;
    private static final long MILLIS_PER_SECOND = 1_000;

    @Context
    private ServletContext context;

    /**
     * A limit's state after an increment or at a delay query.
     *
     * @param counted for an increment, whether the request was counted (false: the limit is full, nothing counted);
     *     absent for a delay query
     * @param delayMs how long until the next request fits; 0 when it fits now
     * @param resetMs how long until the limit is back to full if nothing else is counted
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record LimitAnswer(String id, Boolean counted, long limit, long remaining, long delayMs, long resetMs) {
    }

    /** Counts one request made now: 200 when it fit, else 429 with {@code Retry-After} and nothing counted. */
    @POST
    @Path("/increment")
    public Response increment(@PathParam("id") String id) {
        ServiceLimits.ServiceLimit limit = limit(id);
        Decision decision = store().apply(limit.counterKey(), limit.policy(), 1, 0);
        LimitAnswer answer = answer(id, decision.allowed(), decision);
        if (decision.allowed()) {
            return Response.ok(answer).build();
        }
        long retryAfterSeconds = (answer.delayMs() + MILLIS_PER_SECOND - 1) / MILLIS_PER_SECOND;
        return Response.status(429).header(HttpHeaders.RETRY_AFTER, retryAfterSeconds).entity(answer).build();
    }

    /**
     * How long until one more request fits; counts nothing. Two reads of the store: the state now (remaining, reset)
     * and the answer one more request would get (delay).
     */
    @GET
    @Path("/delay")
    public LimitAnswer delay(@PathParam("id") String id) {
        ServiceLimits.ServiceLimit limit = limit(id);
        CounterStore store = store();
        Decision now = store.peek(limit.counterKey(), limit.policy(), 0);
        Decision next = store.peek(limit.counterKey(), limit.policy(), 1);
        long delayNanos = next.allowed() ? 0 : next.retryAfterNanos();
        return new LimitAnswer(id, null, now.limit(), now.remaining(), millisCeil(delayNanos),
                millisCeil(now.resetAfterNanos()));
    }

    private static LimitAnswer answer(String id, boolean counted, Decision decision) {
        long delayNanos = decision.allowed() ? 0 : decision.retryAfterNanos();
        return new LimitAnswer(id, counted, decision.limit(), decision.remaining(), millisCeil(delayNanos),
                millisCeil(decision.resetAfterNanos()));
    }

    private static long millisCeil(long nanos) {
        return nanos / NANOS_PER_MILLI + (nanos % NANOS_PER_MILLI == 0 ? 0 : 1);
    }

    private ServiceLimits.ServiceLimit limit(String id) {
        ServiceLimits limits = (ServiceLimits) context.getAttribute(ServiceLimitsListener.ATTRIBUTE);
        return limits.find(id).orElseThrow(() -> error(Response.Status.NOT_FOUND,
                "no limit '" + id + "' in " + ServiceLimitsListener.LOCATION));
    }

    private CounterStore store() {
        CounterStore store = (CounterStore) context.getAttribute(RateLimitFilter.STORE_ATTRIBUTE);
        if (store == null) {
            throw error(Response.Status.SERVICE_UNAVAILABLE, "the Sluice filter has not started");
        }
        return store;
    }

    private static WebApplicationException error(Response.Status status, String message) {
        return new WebApplicationException(Response.status(status).type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", message)).build());
    }
}
