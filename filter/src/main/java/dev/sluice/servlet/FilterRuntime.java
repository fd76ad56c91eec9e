package dev.sluice.servlet;

import dev.sluice.engine.Permits;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.engine.RuleSet;
import dev.sluice.http.HeaderStyle;
import dev.sluice.http.LimiterStatus;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.store.CounterStore;
import dev.sluice.store.PermitQueue;
import dev.sluice.store.StoreHealth;
import jakarta.servlet.ServletContext;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Everything a started filter holds; closed on destroy, with the store if the filter opened it, and the metrics'
 * watch of its health.
 */
record FilterRuntime(ReloadingRuleSet ruleSource, CounterStore store, boolean ownsStore, HeaderStyle headerStyle,
                     DecisionMetrics metrics, Supplier<StoreHealth> health, Supplier<LimiterStatus> status,
                     DecisionMetrics.Watch healthWatch, ScheduledExecutorService scheduler, PermitQueue waiters,
                     Permits permits, RequestRoutes routes)
        implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(FilterRuntime.class.getName());

    RuleSet rules() {
        return ruleSource.get();
    }

    static FilterRuntime start(FilterSettings settings, @Nullable ServletContext context, String filterName,
                               ClassLoader storeLoader) {
        ReloadingRuleSet rules = RuleSource.load(settings, context);
        String namespace = settings.namespace().orElseGet(
                () -> context == null || context.getContextPath().isEmpty() ? "/" : context.getContextPath());
        CounterStore given = settings.store().orElse(null);
        CounterStore store = null;
        Supplier<StoreHealth> health;
        DecisionMetrics.Watch healthWatch;
        try {
            store = Stores.open(settings, namespace, storeLoader);
            rules.followOverrides(store.services().overrides());
            health = store.services()::health;
            healthWatch = settings.metrics().watch(health);
        } catch (RuntimeException e) {
            closeQuietly(rules);
            if (store != null && store != given) {
                closeQuietly(store);
            }
            throw e;
        }
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "sluice-delay-" + filterName);
            thread.setDaemon(true);
            return thread;
        });
        CounterStore counting = store;
        String component = "Sluice filter '" + filterName + "'";
        String source = rulesSource(settings);
        Supplier<LimiterStatus> status = () -> LimiterStatus.of(component, counting, rules.get(),
                rules.reloadInterval(), source, settings.headerStyle());
        // Waits retry and go on on the filter's one thread, which holds no request while they wait.
        PermitQueue waiters = new PermitQueue(settings.timeSource(), scheduler, PermitQueue.DEFAULT_RETRY);
        return new FilterRuntime(rules, store, store != given, settings.headerStyle(), settings.metrics(), health,
                status, healthWatch, scheduler, waiters, Permits.waitingIn(waiters, scheduler, settings.metrics()),
                settings.routes());
    }

    /** Where the rules come from, as the start line says: the location, {@code annotations}, both, or none. */
    private static String rulesSource(FilterSettings settings) {
        String location = settings.rules();
        if (settings.annotationRules().isEmpty()) {
            return location != null ? location : LimiterStatus.NONE;
        }
        return location != null ? "annotations and " + location : "annotations";
    }

    @Override
    public void close() {
        healthWatch.close();
        // Requests still waiting for a permit are rejected, and those waiting for their slot sent on, now: none is
        // left hanging without a timeout.
        waiters.close();
        for (Runnable waiting : scheduler.shutdownNow()) {
            try {
                waiting.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "could not release a delayed request on shutdown", e);
            }
        }
        closeQuietly(ruleSource);
        if (ownsStore) {
            store.close();
        }
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "closing " + resource + " failed", e);
        }
    }
}
