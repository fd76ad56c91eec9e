package dev.sluice.servlet;

import dev.sluice.internal.SettingNames;
import dev.sluice.store.CounterStore;
import dev.sluice.store.CounterStoreProvider;
import dev.sluice.store.CounterStores;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.StoreHealth;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Opens the store the settings ask for: the store given in code, the built-in local store, or a
 * {@link CounterStoreProvider} found by name through {@link ServiceLoader} or by class name, whose store is bounded
 * by the settings' failure policy ({@link CounterStores}). Names no store library: an application on the local store
 * needs none on its class path. Stateless.
 */
final class Stores {

    /** The artifacts that contribute the providers Sluice documents, for the message when one is missing. */
    private static final Map<String, String> ARTIFACTS = Map.of(
            "hazelcast", "dev.sluice:sluice-hazelcast",
            "hazelcast-client", "dev.sluice:sluice-hazelcast");

    private static final String PROVIDER = CounterStoreProvider.class.getName();

    private Stores() {
    }

    /**
     * The store the filter counts in: the store given in code behind the failure policy (left open: its owner closes
     * it), or as it is when nothing was set beside it and it is already behind a failure policy or decides in this JVM;
     * else the store the settings' provider opens (the caller closes it), unless it is the local store, behind a cache
     * of its rejections (a client over its limit is answered here until its retry-after, as the store would answer it)
     * and the failure policy.
     *
     * @param loader where providers are looked for, by service and by class name
     * @throws IllegalArgumentException naming the {@code store} init-param, when no such provider is found or it
     *     cannot be created or cannot load what it needs
     */
    static CounterStore open(FilterSettings settings, String namespace, ClassLoader loader) {
        Optional<CounterStore> given = settings.store();
        if (given.isPresent()) {
            CounterStore store = given.get();
            boolean asItIs = !settings.boundsSet() && (store instanceof FailurePolicyStore
                    || store.services().health().mode().equals(StoreHealth.LOCAL.mode()));
            return asItIs ? store : bounded(store, settings).leaveStoreOpen().build();
        }
        String name = settings.storeProvider();
        if (name.equals(FilterSettings.LOCAL_STORE)) {
            return new LocalCounterStore(settings.timeSource(), settings.maxKeys());
        }
        CounterStoreProvider provider = provider(name, loader);
        CounterStore remote;
        try {
            remote = provider.open(new CounterStoreProvider.Context(settings.storeSettings(), namespace,
                    settings.timeSource()));
        } catch (LinkageError e) {
            throw new IllegalArgumentException("init-param 'store': the store '" + name + "' cannot load " + e
                    + "; put the library it needs on the class path", e);
        }
        return bounded(remote, settings).build();
    }

    /** The stack over {@code store} that the settings' failure policy, timeout, rejection cache and metrics make. */
    private static CounterStores.Builder bounded(CounterStore store, FilterSettings settings) {
        return CounterStores.of(store).timeSource(settings.timeSource()).maxKeys(settings.maxKeys())
                .rejectionCache(settings.rejectionCache()).timeout(settings.storeTimeout())
                .onFailure(settings.failurePolicy()).failures(settings.metrics()::storeFailed);
    }

    /**
     * The init-param names the filter takes with the settings' store beyond its own: none for the local store, the
     * provider's {@link CounterStoreProvider#settingNames() names}, or empty when the provider does not say (it then
     * takes every name).
     *
     * @throws IllegalArgumentException as {@link #open}, when no such provider is found or it cannot be created
     */
    static Optional<Set<String>> settingNames(FilterSettings settings, ClassLoader loader) {
        String name = settings.storeProvider();
        return name.equals(FilterSettings.LOCAL_STORE) ? Optional.of(Set.of()) : provider(name, loader).settingNames();
    }

    /** The names of the store providers on the class path of {@code loader} that take setting {@code name}. */
    static List<String> providersTaking(String name, ClassLoader loader) {
        List<String> taking = new ArrayList<>();
        try {
            for (CounterStoreProvider candidate : ServiceLoader.load(CounterStoreProvider.class, loader)) {
                if (candidate.settingNames().map(names -> names.contains(name)).orElse(false)) {
                    taking.add(candidate.name());
                }
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalArgumentException("init-param '" + name + "': a store provider on the class path is"
                    + " broken: " + e.getMessage(), e);
        }
        return taking;
    }

    /** The provider named {@code name} among the services of {@code loader}, else the class of that name. */
    private static CounterStoreProvider provider(String name, ClassLoader loader) {
        List<String> available = new ArrayList<>();
        try {
            for (CounterStoreProvider candidate : ServiceLoader.load(CounterStoreProvider.class, loader)) {
                if (candidate.name().equals(name)) {
                    return candidate;
                }
                available.add(candidate.name());
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalArgumentException("init-param 'store': a store provider on the class path is broken: "
                    + e.getMessage(), e);
        }
        String artifact = ARTIFACTS.get(name);
        if (artifact != null) {
            throw new IllegalArgumentException("init-param 'store': the store '" + name + "' needs " + artifact
                    + " on the class path (with the Hazelcast it runs on, com.hazelcast:hazelcast)");
        }
        if (name.indexOf('.') < 0) {
            available.add(0, FilterSettings.LOCAL_STORE);
            throw new IllegalArgumentException("init-param 'store': expected " + String.join(", ", available)
                    + " (the stores on the class path) or the class name of a " + PROVIDER + ", got '" + name + "'");
        }
        return instantiate(name, loader);
    }

    private static CounterStoreProvider instantiate(String className, ClassLoader loader) {
        Class<?> type;
        try {
            type = Class.forName(className, true, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException("init-param 'store': no store provider class " + className
                    + " on the class path", e);
        }
        if (!CounterStoreProvider.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("init-param 'store': " + className + " is not a " + PROVIDER);
        }
        try {
            return (CounterStoreProvider) type.getConstructor().newInstance();
        } catch (NoSuchMethodException | InstantiationException | IllegalAccessException e) {
            throw new IllegalArgumentException("init-param 'store': cannot create " + className + ": a store provider"
                    + " needs to be a public class with a public no-argument constructor", e);
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException("init-param 'store': the constructor of " + className + " failed: "
                    + e.getCause(), e.getCause());
        }
    }

    /** Refuses a store setting given by name in code that the store provider does not take, unless it takes all. */
    static void requireKnownStoreSettings(FilterSettings settings, ClassLoader loader) {
        Optional<Set<String>> known = settingNames(settings, loader);
        if (known.isPresent()) {
            SettingNames.requireKnown(settings.storeSettingNames(), "store setting",
                    "a setting of store '" + settings.storeProvider() + "'", List.copyOf(known.get()));
        }
    }
}
