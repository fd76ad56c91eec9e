package dev.sluice.jersey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.TimeSource;
import dev.sluice.annotation.RateLimited;
import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.servlet.FilterSettings;
import dev.sluice.servlet.JettyServer;
import dev.sluice.servlet.JettyServers;
import dev.sluice.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.util.EnumSet;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * One store per application: where the servlet filter runs on a cluster, the auto-discovered Jersey binding (given
 * no store) counts its annotation limits in the filter's store, so two instances share them.
 */
@Tag("cluster")
class SharedStoreTest {

    @AutoClose
    private final JettyServers servers = new JettyServers();
    private List<HazelcastCounterStore> members = List.of();

    @Path("/shared")
    @RateLimited(id = "shared", permits = 2, period = "1m")
    public static class Shared {
        @GET
        public String get() {
            return "ok";
        }
    }

    @AfterEach
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    @Test
    void autoDiscoveredBinding_behindTheFilterOnTwoInstances_sharesTheAnnotationLimit() throws Exception {
        members = ClusterSupport.startCluster(2, TimeSource.system());
        List<JettyServer> instances = List.of(instance(members.get(0)), instance(members.get(1)));

        int passed = 0;
        for (int i = 0; i < 6; i++) {
            if (instances.get(i % 2).get("/shared").statusCode() == 200) {
                passed++;
            }
        }

        assertThat(passed).as("requests passed across both instances, limit 2 per minute").isEqualTo(2);
    }

    /** An application instance: the servlet filter on {@code store} (no rules) in front of Jersey, not registered. */
    private JettyServer instance(HazelcastCounterStore store) throws Exception {
        RateLimitFilter filter = new RateLimitFilter(FilterSettings.builder().store(store).build());
        JettyServer server = JettyServer.start(context -> {
            context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
            JerseyServlet.deploy(context, new ResourceConfig(Shared.class));
        });
        servers.add(server);
        return server;
    }
}
