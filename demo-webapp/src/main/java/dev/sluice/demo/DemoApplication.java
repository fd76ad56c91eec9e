package dev.sluice.demo;

import dev.sluice.jersey.RateLimitFeature;
import dev.sluice.rules.LimitsFile;
import dev.sluice.service.LimiterService;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.store.CounterStore;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.core.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.glassfish.jersey.server.ResourceConfig;
import org.jspecify.annotations.Nullable;

/**
 * The demo's Jersey application: its resources, and the Sluice Jersey binding for the {@code @RateLimited}
 * methods, counting in the store of the servlet filter in front (the filter publishes it in the servlet context),
 * so annotated and rules-file limits share one cluster; the limiter service ({@link LimiterService}, limits from
 * {@value #LIMITS}) counts there too. Its operations endpoints (reset, state) are on when the environment variable
 * {@value #OPERATIONS_TOKEN_VARIABLE} holds a bearer token of at least 16 characters, and answer 404 otherwise. Built
 * once by Jersey.
 */
public class DemoApplication extends ResourceConfig {

    /** Where the limiter service's limits are read from, in the web application. */
    public static final String LIMITS = "/WEB-INF/limiter-service.json";

    /** The environment variable holding the limiter service's operations token, if any. */
    public static final String OPERATIONS_TOKEN_VARIABLE = "SLUICE_DEMO_OPERATIONS_TOKEN";

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
        LimiterService.Builder service = LimiterService.builder().limits(limits(servletContext)).store(filterStore);
        @Nullable String token = System.getenv(OPERATIONS_TOKEN_VARIABLE);
        if (token != null && !token.isBlank()) {
            service.operationsToken(token);
        }
        register(service.build());
    }

    /** The limiter service's limits; a mistake in the file fails the start, naming file, line, column and field. */
    private static LimitsFile limits(ServletContext context) {
        try (@Nullable InputStream in = context.getResourceAsStream(LIMITS)) {
            if (in == null) {
                throw new IllegalStateException("no " + LIMITS + " in the web application");
            }
            return LimitsFile.parse(LIMITS.substring(LIMITS.lastIndexOf('/') + 1), in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + LIMITS, e);
        }
    }
}
