package dev.sluice.servlet;

import dev.sluice.TimeSource;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.rules.Rule;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import java.nio.file.Path;

/**
 * Opens the store the settings ask for. Only this class names Hazelcast, and only when a Hazelcast store is asked
 * for does the JVM load it: an application on the local store does not need Hazelcast on its classpath.
 */
final class Stores {

    private Stores() {
    }

    static CounterStore open(FilterSettings settings, String namespace) {
        if (settings.store() == FilterSettings.StoreKind.LOCAL) {
            return local(settings);
        }
        CounterStore remote = Hazelcast.open(settings, namespace);
        FailurePolicyStore guarded = switch (settings.failurePolicy()) {
            case ALLOW -> FailurePolicyStore.allowing(remote, settings.storeTimeout());
            case REJECT -> FailurePolicyStore.rejecting(remote, settings.storeTimeout());
            case FALLBACK -> FailurePolicyStore.fallingBackTo(remote, settings.storeTimeout(), local(settings));
        };
        // The key itself is client data: only the rule id it starts with may become a tag.
        return guarded.listeningTo((key, timedOut) -> settings.metrics().storeFailed(
                Rule.idOfCounterKey(key).orElse(DecisionMetrics.NOT_A_RULE)));
    }

    private static LocalCounterStore local(FilterSettings settings) {
        return new LocalCounterStore(TimeSource.system(), settings.maxKeys());
    }

    /** Kept apart so that Hazelcast's classes are resolved only when this is called. */
    private static final class Hazelcast {
        static CounterStore open(FilterSettings settings, String namespace) {
            HazelcastCounterStore.Builder builder = HazelcastCounterStore.builder()
                    .mapName(HazelcastCounterStore.DEFAULT_MAP_NAME + (namespace.equals("/") ? "" : namespace));
            if (settings.store() == FilterSettings.StoreKind.HAZELCAST_CLIENT) {
                builder.client();
                if (settings.hazelcastConfig() != null) {
                    builder.clientConfig(Path.of(settings.hazelcastConfig()));
                }
            } else if (settings.hazelcastConfig() != null) {
                builder.memberConfig(Path.of(settings.hazelcastConfig()));
            } else {
                builder.port(settings.port()).bindAddress(settings.bindInterface());
            }
            if (settings.hazelcastConfig() == null) {
                builder.clusterName(settings.clusterName()).members(settings.members().toArray(String[]::new));
            }
            return builder.build();
        }
    }
}
