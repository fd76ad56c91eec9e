package dev.sluice.demo;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sluice.Decision;
import dev.sluice.Durations;
import dev.sluice.http.RateLimitHeaders;
import dev.sluice.store.CounterStore;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The limiter as a service, for clients in any language: {@code POST /api/limits/{id}/increment} counts one request
 * made now, {@code GET /api/limits/{id}/delay} tells how long until the next request fits (0: now). The limits come
 * from {@link ServiceLimitsListener#LOCATION}; they count in the Sluice filter's store, so every instance of a cluster
 * shares them. Durations are in whole milliseconds, rounded up. One instance per application; stateless, so
 * thread-safe.
 */
@Path("/limits/{id}")
@Produces(MediaType.APPLICATION_JSON)
public class LimiterServiceResource {

    private static final long NANOS_PER_MILLI = 1_000_000;

    private final CounterStore store;
    private final ServiceLimits limits;

    LimiterServiceResource(CounterStore store, ServiceLimits limits) {
        this.store = store;
        this.limits = limits;
    }

    /**
     * A limit's state after an increment or at a delay query.
     *
     * @param counted for an increment, whether the request was counted (false: the limit is full, nothing counted);
     *     absent for a delay query
     * @param delayMs how long until the next request fits; 0 when it fits now
     * @param resetMs how long until the limit is back to full if nothing else is counted
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record LimitAnswer(String id, @Nullable Boolean counted, long limit, long remaining, long delayMs,
                              long resetMs) {
    }

    /** Counts one request made now: 200 when it fit, else 429 with {@code Retry-After} and nothing counted. */
    @POST
    @Path("/increment")
    public Response increment(@PathParam("id") String id) {
        ServiceLimits.ServiceLimit limit = limit(id);
        Decision decision = store.apply(limit.counterKey(), limit.policy(), 1, 0);
        LimitAnswer answer = answer(id, decision.allowed(), decision, decision);
        if (decision.allowed()) {
            return Response.ok(answer).build();
        }
        return Response.status(429).header(HttpHeaders.RETRY_AFTER, RateLimitHeaders.retryAfterSeconds(decision))
                .entity(answer).build();
    }

    /**
     * How long until one more request fits; counts nothing. Two reads of the store: the state now (remaining, reset)
     * and the answer one more request would get (delay).
     */
    @GET
    @Path("/delay")
    public LimitAnswer delay(@PathParam("id") String id) {
        ServiceLimits.ServiceLimit limit = limit(id);
        Decision now = store.peek(limit.counterKey(), limit.policy(), 0);
        Decision next = store.peek(limit.counterKey(), limit.policy(), 1);
        return answer(id, null, now, next);
    }

    /** The answer: limit, remaining and reset from {@code state}, the delay from {@code next}'s decision. */
    private static LimitAnswer answer(String id, @Nullable Boolean counted, Decision state, Decision next) {
        long delayNanos = next.allowed() ? 0 : next.retryAfterNanos();
        return new LimitAnswer(id, counted, state.limit(), state.remaining(), millisCeil(delayNanos),
                millisCeil(state.resetAfterNanos()));
    }

    private static long millisCeil(long nanos) {
        return Durations.ceilDiv(nanos, NANOS_PER_MILLI);
    }

    private ServiceLimits.ServiceLimit limit(String id) {
        return limits.find(id).orElseThrow(() -> new WebApplicationException(Response.status(Response.Status.NOT_FOUND)
                .type(MediaType.APPLICATION_JSON)
                .entity(Map.of("error", "no limit '" + id + "' in " + ServiceLimitsListener.LOCATION)).build()));
    }
}
