package dev.sluice.demo;

import dev.sluice.console.Console;
import dev.sluice.console.RuleFigures;
import dev.sluice.http.LimiterStatus;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.store.StoreHealth;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code GET /api/stats}: this instance's recent decisions per rule (the console's {@link Console#local()} figures:
 * totals, one count per second over the last two minutes, the most limited keys, masked), which the live page charts,
 * the health of the Sluice filter's store ({@link StoreHealth}: its mode, the cluster members it sees, the calls it
 * failed, timed out or shed in the last minute), and what the filter limits with ({@link LimiterStatus}: the facts of
 * its start line). One instance per request (Jersey's default); stateless.
 */
@Path("/stats")
@Produces(MediaType.APPLICATION_JSON)
public class StatsResource {

    @Context
    private ServletContext context;

    /** What the live page shows: the rules' decisions, the store's health and the filter's status. */
    public record LiveStats(long intervalMillis, List<RuleFigures> rules, StoreHealth store, LimiterStatus filter) {
    }

    @GET
    @SuppressWarnings("unchecked")
    public LiveStats stats() {
        Console console = (Console) context.getAttribute(DemoApplication.CONSOLE_ATTRIBUTE);
        StoreHealth store = ((Supplier<StoreHealth>) context.getAttribute(RateLimitFilter.HEALTH_ATTRIBUTE)).get();
        LimiterStatus filter = ((Supplier<LimiterStatus>) context.getAttribute(RateLimitFilter.STATUS_ATTRIBUTE))
                .get();
        return new LiveStats(console.interval().toMillis(), console.local().rules(), store, filter);
    }
}
