package dev.sluice.jersey;

import dev.sluice.http.HeaderStyle;
import dev.sluice.rules.ReloadingRuleSet;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleSet;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.glassfish.jersey.server.spi.Container;
import org.glassfish.jersey.server.spi.ContainerLifecycleListener;
import org.jspecify.annotations.Nullable;

/**
 * What one configured {@link RateLimitFeature} holds for one application: the rules (built at deployment, once the
 * resource model is known), the store and the header style. Closes what it opened when the container shuts down.
 */
final class Limiting implements ContainerLifecycleListener {

    private final @Nullable Path rulesFile;
    private final Duration reloadInterval;
    private final @Nullable CounterStore ownStore;
    private final CounterStore store;
    private final HeaderStyle headerStyle;
    /** The rules; null until the resource model is known. */
    private volatile @Nullable ReloadingRuleSet rules;

    Limiting(@Nullable Path rulesFile, Duration reloadInterval, @Nullable CounterStore store, HeaderStyle headerStyle) {
        this.rulesFile = rulesFile;
        this.reloadInterval = reloadInterval;
        this.ownStore = store == null ? new LocalCounterStore() : null;
        this.store = new NonQueueingStore(store == null ? ownStore : store);
        this.headerStyle = headerStyle;
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
        return store;
    }

    HeaderStyle headerStyle() {
        return headerStyle;
    }

    @Override
    public void onStartup(Container container) {
    }

    @Override
    public void onReload(Container container) {
    }

    @Override
    public synchronized void onShutdown(Container container) {
        closeRules();
        if (ownStore != null) {
            ownStore.close();
        }
    }

    private void closeRules() {
        ReloadingRuleSet loaded = rules;
        if (loaded != null) {
            loaded.close();
        }
    }
}
