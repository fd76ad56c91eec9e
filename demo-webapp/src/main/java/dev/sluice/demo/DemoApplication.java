package dev.sluice.demo;

import dev.sluice.console.Console;
import dev.sluice.console.ConsoleFeature;
import dev.sluice.console.ConsoleRecorder;
import dev.sluice.console.ConsoleRecordingFilter;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.http.LimiterStatus;
import dev.sluice.jersey.RateLimitFeature;
import dev.sluice.service.LimiterService;
import dev.sluice.service.LimitsFile;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.store.CounterStore;
import dev.sluice.store.StoreHealth;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.core.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.function.Supplier;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.spi.Container;
import org.glassfish.jersey.server.spi.ContainerLifecycleListener;
import org.jspecify.annotations.Nullable;

/**
 * The demo's Jersey application: its resources, and the Sluice Jersey binding for the {@code @RateLimited}
 * methods, counting in the store of the servlet filter in front (the filter publishes it in the servlet context),
 * so annotated and rules-file limits share one cluster; the limiter service ({@link LimiterService}, limits from
 * {@value #LIMITS}) counts there too. Its operations endpoints (reset, state) are on when the environment variable
 * {@value #OPERATIONS_TOKEN_VARIABLE} holds a bearer token of at least 16 characters, and answer 404 otherwise. The
 * cluster-wide console ({@code api/console/}) is opened by the token in the context init-param
 * {@value #CONSOLE_TOKEN_PARAM} (the launcher sets one), or else by that variable's. Built once by Jersey.
 */
public class DemoApplication extends ResourceConfig {

    /** Where the limiter service's limits are read from, in the web application. */
    public static final String LIMITS = "/WEB-INF/limiter-service.json";

    /** The environment variable holding the limiter service's operations token, if any. */
    public static final String OPERATIONS_TOKEN_VARIABLE = "SLUICE_DEMO_OPERATIONS_TOKEN";

    /** The servlet context attribute holding the demo's {@link Console}, whose figures the live page shows. */
    public static final String CONSOLE_ATTRIBUTE = Console.class.getName();

    /**
     * The context init-param holding the console's operations token (the launcher sets it); the environment variable
     * {@value #OPERATIONS_TOKEN_VARIABLE} when absent.
     */
    public static final String CONSOLE_TOKEN_PARAM = "sluice-demo.console-token";

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
        registerConsole(servletContext, filterStore, token);
    }

    /**
     * The console, fed by the {@link ConsoleRecordingFilter} of {@code web.xml}, publishing into the filter's store's
     * cluster, at {@code api/console/}; closed with the application.
     */
    @SuppressWarnings("unchecked")
    private void registerConsole(ServletContext servletContext, CounterStore store, @Nullable String serviceToken) {
        ConsoleRecorder recorder =
                (ConsoleRecorder) servletContext.getAttribute(ConsoleRecordingFilter.RECORDER_ATTRIBUTE);
        ReloadingRuleSet rules = (ReloadingRuleSet) servletContext.getAttribute(RateLimitFilter.RULES_ATTRIBUTE);
        Supplier<StoreHealth> health =
                (Supplier<StoreHealth>) servletContext.getAttribute(RateLimitFilter.HEALTH_ATTRIBUTE);
        Supplier<LimiterStatus> status =
                (Supplier<LimiterStatus>) servletContext.getAttribute(RateLimitFilter.STATUS_ATTRIBUTE);
        Console console = Console.builder(store, recorder).rules(rules, status.get().rulesSource()).health(health)
                .build();
        servletContext.setAttribute(CONSOLE_ATTRIBUTE, console);
        ConsoleFeature.Builder feature = ConsoleFeature.builder(console);
        @Nullable String token = servletContext.getInitParameter(CONSOLE_TOKEN_PARAM);
        token = token != null ? token : serviceToken;
        if (token != null && !token.isBlank()) {
            feature.operationsToken(token);
        }
        register(feature.build());
        register(new ContainerLifecycleListener() {
            @Override
            public void onStartup(Container container) {
            }

            @Override
            public void onReload(Container container) {
            }

            @Override
            public void onShutdown(Container container) {
                servletContext.removeAttribute(CONSOLE_ATTRIBUTE);
                console.close();
            }
        });
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
