package dev.sluice.jersey;

import dev.sluice.TimeSource;
import dev.sluice.engine.PermitEvents;
import dev.sluice.engine.Permits;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.engine.RuleSet;
import dev.sluice.http.HeaderStyle;
import dev.sluice.http.LimiterStatus;
import dev.sluice.http.RateLimitResponse;
import dev.sluice.rules.Rule;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.PermitQueue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.glassfish.jersey.server.spi.Container;
import org.glassfish.jersey.server.spi.ContainerLifecycleListener;
import org.jspecify.annotations.Nullable;

/**
 * What one configured {@link RateLimitFeature} holds for one application: the rules (built at deployment, once the
 * resource model is known), the store and the header style. Closes what it opened when the container shuts down.
 *
 * <p>One store per application: a feature given no store counts in the store a Sluice servlet filter of the same web
 * application published ({@link RateLimitResponse#STORE_ATTRIBUTE}), so annotation limits are shared wherever the
 * filter's are; only when there is none does it open a local store of its own. At start it logs one {@code INFO} line
 * ({@link LimiterStatus#startLine()}) saying which store, with its members and failure policy, the rules and their
 * source, and the header style.
 */
final class Limiting implements ContainerLifecycleListener {

    private static final System.Logger LOG = System.getLogger(RateLimitFeature.class.getName());

    private final @Nullable Path rulesFile;
    private final Duration reloadInterval;
    /** A local store this opened because no other was found; closed on shutdown. */
    private volatile @Nullable CounterStore ownStore;
    /** Decided at start: the given store, the servlet filter's, or an own local one. */
    private volatile @Nullable CounterStore store;
    /** Whose store {@link #store} is, for the start line. */
    private volatile String storeOrigin = "the store given to RateLimitFeature.Builder.store";
    private final HeaderStyle headerStyle;
    /** The rules; null until the resource model is known. */
    private volatile @Nullable ReloadingRuleSet rules;
    /** Where waits for permits retry and time out; its thread starts on the first wait. */
    private final ScheduledExecutorService waitScheduler = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "sluice-jersey-permit-wait");
        thread.setDaemon(true);
        return thread;
    });
    private final PermitQueue waiters;
    private final Permits permits;

    Limiting(@Nullable Path rulesFile, Duration reloadInterval, @Nullable CounterStore store, HeaderStyle headerStyle,
             TimeSource time) {
        this.rulesFile = rulesFile;
        this.reloadInterval = reloadInterval;
        this.store = store == null ? null : new NonQueueingStore(store);
        this.headerStyle = headerStyle;
        this.waiters = new PermitQueue(time, waitScheduler, PermitQueue.DEFAULT_RETRY);
        this.permits = Permits.waitingIn(waiters, waitScheduler, PermitEvents.NONE);
    }

    /** How requests take permits: waiting in this binding's queue where a rule says so. */
    Permits permits() {
        return permits;
    }

    /** Builds the rules from the annotations and the rules file; throws {@code RulesException} when they conflict. */
    synchronized void load(List<Rule> annotationRules) {
        closeRules();
        ReloadingRuleSet.Builder loading = ReloadingRuleSet.builder().annotationRules(annotationRules)
                .reloadInterval(reloadInterval);
        if (rulesFile != null) {
            loading.file(rulesFile);
        }
        rules = loading.build();
    }

    /** Whether a rules file may match any resource method, so every one needs the filter. */
    boolean hasRulesFile() {
        return rulesFile != null;
    }

    RuleSet rules() {
        ReloadingRuleSet loaded = rules;
        return loaded == null ? RuleSet.empty() : loaded.get();
    }

    CounterStore store() {
        CounterStore decided = store;
        return decided != null ? decided : chooseStore(Optional.empty());
    }

    /** The filter's store when one was published, else an own local store; logged, once. */
    private synchronized CounterStore chooseStore(Optional<CounterStore> published) {
        CounterStore decided = store;
        if (decided != null) {
            return decided;
        }
        if (published.isPresent()) {
            storeOrigin = "the servlet filter's store, as the filter does";
            decided = new NonQueueingStore(published.get());
        } else {
            storeOrigin = "a local store of its own, so its limits are not shared with other instances: it was given"
                    + " no store, and no Sluice servlet filter published one (servlet context attribute "
                    + RateLimitResponse.STORE_ATTRIBUTE + ")";
            CounterStore local = new LocalCounterStore();
            ownStore = local;
            decided = new NonQueueingStore(local);
        }
        store = decided;
        return decided;
    }

    HeaderStyle headerStyle() {
        return headerStyle;
    }

    @Override
    public void onStartup(Container container) {
        if (store == null) {
            chooseStore(ServletAddressCapture.available() ? PublishedStore.in(container) : Optional.empty());
        }
        ReloadingRuleSet loaded = rules;
        if (loaded != null) {
            loaded.followOverrides(store().services().overrides());
        }
        LOG.log(System.Logger.Level.INFO, status().startLine() + "; it counts in " + storeOrigin);
    }

    /** What the binding limits with now: the store it counts in (unwrapped), the rules and their source. */
    LimiterStatus status() {
        CounterStore counting = store();
        ReloadingRuleSet loaded = rules;
        return LimiterStatus.of("Sluice Jersey binding",
                counting instanceof NonQueueingStore wrapped ? wrapped.delegate() : counting, rules(),
                loaded != null ? loaded.reloadInterval() : Duration.ZERO,
                rulesFile == null ? "annotations" : "annotations and " + rulesFile, headerStyle);
    }

    @Override
    public void onReload(Container container) {
    }

    @Override
    public synchronized void onShutdown(Container container) {
        closeRules();
        waiters.close();
        waitScheduler.shutdownNow();
        CounterStore local = ownStore;
        if (local != null) {
            local.close();
        }
    }

    private void closeRules() {
        ReloadingRuleSet loaded = rules;
        if (loaded != null) {
            loaded.close();
        }
    }
}
