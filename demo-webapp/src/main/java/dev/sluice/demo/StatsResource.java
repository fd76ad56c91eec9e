package dev.sluice.demo;

import dev.sluice.http.LimiterStatus;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.store.StoreHealth;
import java.util.List;
import java.util.function.Supplier;

import jakarta.servlet.ServletContext;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/stats}: this instance's recent decisions per rule ({@link DecisionStats.Snapshot}), which the live
 * page charts, the health of the Sluice filter's store ({@link StoreHealth}: its mode, the cluster members it
 * sees, the calls it failed, timed out or shed in the last minute), and what the filter limits with
 * ({@link LimiterStatus}: the facts of its start line). Keys are masked. One instance per request
 * (Jersey's default); stateless.
 */
@Path("/stats")
@Produces(MediaType.APPLICATION_JSON)
public class StatsResource {

    @Context
    private ServletContext context;

    /** What the live page shows: the rules' decisions, the store's health and the filter's status. */
    public record LiveStats(long bucketSeconds, int buckets, List<DecisionStats.RuleSeries> rules,
                            StoreHealth store, LimiterStatus filter) {
    }

    @GET
    @SuppressWarnings("unchecked")
    public LiveStats stats() {
        DecisionStats.Snapshot snapshot = DecisionStats.of(context).snapshot();
        StoreHealth store = ((Supplier<StoreHealth>) context.getAttribute(RateLimitFilter.HEALTH_ATTRIBUTE)).get();
        LimiterStatus filter = ((Supplier<LimiterStatus>) context.getAttribute(RateLimitFilter.STATUS_ATTRIBUTE))
                .get();
        return new LiveStats(snapshot.bucketSeconds(), snapshot.buckets(), snapshot.rules(), store, filter);
    }
}
