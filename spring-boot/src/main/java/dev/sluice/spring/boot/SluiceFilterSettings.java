package dev.sluice.spring.boot;

import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.servlet.FilterSettings;
import dev.sluice.store.CounterStore;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * Turns {@link SluiceProperties} and what the application has (a store bean, meters, annotated handlers) into the
 * filter's {@link FilterSettings}. A value the filter refuses is refused naming its {@code sluice.*} property.
 * Stateless.
 */
final class SluiceFilterSettings {

    /** The rules file an application has without saying so: {@value}. */
    static final String DEFAULT_RULES = "classpath:sluice-rules.json";

    /** The name of the store bean made on the application's HazelcastInstance: {@value}. */
    static final String HAZELCAST_STORE_BEAN = "sluiceHazelcastStore";

    private static final String HAZELCAST_INSTANCE = "com.hazelcast.core.HazelcastInstance";


    private SluiceFilterSettings() {
    }

    /**
     * The filter's settings.
     *
     * @throws SluiceConfigurationException for a value the filter refuses, or a store the application asks for and
     *     does not have
     */
    static FilterSettings of(SluiceProperties properties, Environment environment, ResourceLoader resources,
                             ListableBeanFactory beans, ObjectProvider<CounterStore> stores,
                             ObjectProvider<DecisionMetrics> metrics, ObjectProvider<AnnotatedHandlers> handlers) {
        FilterSettings.Builder settings = common(properties, environment, metrics);
        String rules = properties.getRules();
        if (rules == null && resources.getResource(DEFAULT_RULES).exists()) {
            rules = DEFAULT_RULES;
        }
        if (rules != null) {
            settings.rules(rules);
        }
        settings.failurePolicy(properties.getFailurePolicy());
        set("store-timeout", properties.getStoreTimeout(), () -> settings.storeTimeout(properties.getStoreTimeout()));
        set("rejection-cache", properties.getRejectionCache(),
                () -> settings.rejectionCache(properties.getRejectionCache()));
        set("max-keys", properties.getMaxKeys(), () -> settings.maxKeys(properties.getMaxKeys()));
        store(properties, environment, resources, beans, stores, settings);
        AnnotatedHandlers annotated = handlers.getIfAvailable();
        if (annotated != null && !annotated.rules().isEmpty()) {
            settings.annotated(annotated.rules(), annotated.routes());
        }
        return settings.build();
    }

    /**
     * The settings of the filter before Spring Security's filter chain: the rules of
     * {@code sluice.before-security.rules}, counted in {@code store} (the store of the filter after the chain, as it
     * is: its failure policy and timeout are already around it), with the same headers, client addresses, namespace
     * and metrics.
     *
     * @throws SluiceConfigurationException for a value the filter refuses
     */
    static FilterSettings beforeSecurity(String rules, CounterStore store, SluiceProperties properties,
                                         Environment environment, ObjectProvider<DecisionMetrics> metrics) {
        return common(properties, environment, metrics).rules(rules).store(store).build();
    }

    /** What both filters take from the properties: reloading, headers, client addresses, namespace, metrics. */
    private static FilterSettings.Builder common(SluiceProperties properties, Environment environment,
                                                 ObjectProvider<DecisionMetrics> metrics) {
        FilterSettings.Builder settings = FilterSettings.builder();
        set("rules-reload-interval", properties.getRulesReloadInterval(),
                () -> settings.rulesReloadInterval(properties.getRulesReloadInterval()));
        settings.headerStyle(properties.getHeaderStyle());
        if (!properties.getTrustedProxies().isEmpty()) {
            settings.trustedProxies(properties.getTrustedProxies());
        }
        settings.clientAddressHeader(properties.getClientAddressHeader());
        Integer ipv6Prefix = properties.getIpv6Prefix();
        if (ipv6Prefix != null) {
            set("ipv6-prefix", ipv6Prefix, () -> settings.ipv6Prefix(ipv6Prefix));
        }
        String namespace = properties.getNamespace();
        if (namespace == null) {
            namespace = environment.getProperty("server.servlet.context-path", "");
        }
        settings.namespace(namespace.isEmpty() ? "/" : namespace);
        settings.metrics(metrics(metrics.orderedStream().toList()));
        return settings;
    }

    private static DecisionMetrics metrics(List<DecisionMetrics> all) {
        return switch (all.size()) {
            case 0 -> DecisionMetrics.NONE;
            case 1 -> all.get(0);
            default -> DecisionMetrics.all(all.toArray(DecisionMetrics[]::new));
        };
    }

    /** Where the filter counts, as {@code sluice.store} says (see {@link SluiceProperties#getStore()}). */
    private static void store(SluiceProperties properties, Environment environment, ResourceLoader resources,
                              ListableBeanFactory beans, ObjectProvider<CounterStore> stores,
                              FilterSettings.Builder settings) {
        String store = properties.getStore().trim();
        Map<String, String> storeSettings = properties.getStoreSettings();
        boolean provider = !List.of(SluiceProperties.AUTO_STORE, SluiceProperties.HAZELCAST_INSTANCE_STORE,
                FilterSettings.LOCAL_STORE).contains(store);
        if (!provider && !storeSettings.isEmpty()) {
            throw new SluiceConfigurationException("sluice.store-settings (" + String.join(", ",
                    storeSettings.keySet()) + ") is set, but sluice.store is '" + store + "', which takes no settings.",
                    "Remove sluice.store-settings, or name the store provider they are for in sluice.store (such as"
                            + " hazelcast-client).");
        }
        if (provider) {
            set("store", store, () -> settings.storeProvider(store, storeSettings));
        } else if (store.equals(SluiceProperties.HAZELCAST_INSTANCE_STORE)) {
            if (!beans.containsBean(HAZELCAST_STORE_BEAN)) {
                throw new SluiceConfigurationException("sluice.store is hazelcast-instance, but Sluice found no single"
                        + " HazelcastInstance to count in" + hazelcastProblem(beans) + ".",
                        "Give the application one HazelcastInstance (Spring Boot makes one from hazelcast.yaml with "
                                + MissingHazelcastInstance.MODULE + " on the class path), or set sluice.store to"
                                + " another store.");
            }
            settings.store(stores.getObject());
        } else if (store.equals(SluiceProperties.AUTO_STORE)) {
            CounterStore given = stores.getIfUnique();
            if (given != null) {
                settings.store(given);
            } else if (hazelcastInstances(beans) > 0) {
                throw new SluiceConfigurationException("The application has a HazelcastInstance, but Sluice cannot"
                        + " count in it" + hazelcastProblem(beans) + "; it would count in this JVM alone.",
                        "Add dev.sluice:sluice-hazelcast (sluice-spring-boot-starter brings it), or define the"
                                + " CounterStore bean to count in (HazelcastCounterStore.using(instance)), or set"
                                + " sluice.store=local to count in each instance on its own.");
            } else {
                MissingHazelcastInstance.refuse(environment, resources, beans, loader(beans));
            }
        }
    }

    private static String hazelcastProblem(ListableBeanFactory beans) {
        int instances = hazelcastInstances(beans);
        if (instances == 0) {
            return " (it has none)";
        }
        if (!ClassUtils.isPresent("dev.sluice.hazelcast.HazelcastCounterStore", loader(beans))) {
            return ": dev.sluice:sluice-hazelcast is not on the class path";
        }
        return instances > 1 ? ": it has " + instances + " HazelcastInstance beans and none is primary"
                : ": it has a CounterStore bean of its own";
    }

    /** The application's HazelcastInstance beans; 0 without Hazelcast on the class path. */
    private static int hazelcastInstances(ListableBeanFactory beans) {
        ClassLoader loader = loader(beans);
        if (!ClassUtils.isPresent(HAZELCAST_INSTANCE, loader)) {
            return 0;
        }
        return beans.getBeanNamesForType(ClassUtils.resolveClassName(HAZELCAST_INSTANCE, loader)).length;
    }

    /** The class loader the application's beans come from. */
    private static @Nullable ClassLoader loader(ListableBeanFactory beans) {
        return beans instanceof ConfigurableBeanFactory configurable ? configurable.getBeanClassLoader()
                : ClassUtils.getDefaultClassLoader();
    }

    /** Applies a property's value to the settings, naming the property when the filter refuses the value. */
    private static void set(String property, Object value, Runnable apply) {
        try {
            apply.run();
        } catch (IllegalArgumentException e) {
            throw new SluiceConfigurationException("property 'sluice." + property + "': " + e.getMessage() + ", got '"
                    + value + "'", "Correct sluice." + property + " (docs/spring-boot.md says what it takes).", e);
        }
    }
}
