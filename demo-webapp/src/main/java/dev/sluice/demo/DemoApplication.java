package dev.sluice.demo;

import dev.sluice.jersey.RateLimitFeature;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.store.CounterStore;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.core.Context;
import org.glassfish.jersey.server.ResourceConfig;
import org.jspecify.annotations.Nullable;

/**
 * The demo's Jersey application: its resources, and the Sluice Jersey binding for the {@code @RateLimited}
 * methods, counting in the store of the servlet filter in front (the filter publishes it in the servlet context),
 * so annotated and rules-file limits share one cluster; the limiter service counts there too. Built once by Jersey.
 */
public class DemoApplication extends ResourceConfig {

    public DemoApplication(@Context ServletContext servletContext) {
        register(ShowcaseResource.class);
        register(StatsResource.class);
        @Nullable CounterStore filterStore =
                (CounterStore) servletContext.getAttribute(RateLimitFilter.STORE_ATTRIBUTE);
        if (filterStore == null) {
            throw new IllegalStateException("the Sluice filter must start before Jersey: no store in the servlet "
                    + "context attribute " + RateLimitFilter.STORE_ATTRIBUTE);
        }
        register(RateLimitFeature.builder().store(filterStore).build());
        register(new LimiterServiceResource(filterStore,
                (ServiceLimits) servletContext.getAttribute(ServiceLimitsListener.ATTRIBUTE)));
    }
}
