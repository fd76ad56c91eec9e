package dev.sluice.demo;

import jakarta.servlet.ServletContext;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /api/stats}: this instance's recent decisions per rule ({@link DecisionStats.Snapshot}), which the live
 * page charts. Keys are masked. One instance per request (Jersey's default); stateless.
 */
@Path("/stats")
@Produces(MediaType.APPLICATION_JSON)
public class StatsResource {

    @Context
    private ServletContext context;

    @GET
    public DecisionStats.Snapshot stats() {
        return DecisionStats.of(context).snapshot();
    }
}
