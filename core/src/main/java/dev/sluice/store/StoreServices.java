package dev.sluice.store;

import dev.sluice.TimeSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * What a {@link CounterStore} keeps besides counters, for the adapters and the console: the overrides of limits every
 * instance sharing the store applies, shared entries, and the store's health. Thread-safe.
 */
public interface StoreServices {

    /**
     * The overrides of limits that every instance sharing the store applies ({@link LimitOverride}): the local store
     * keeps them in memory, the Hazelcast store in the cluster. Ask once and keep the answer; rule sets read it on
     * every request. {@link LimitOverrides#unsupported()} for a store that keeps none.
     */
    LimitOverrides overrides();

    /**
     * The shared entries named {@code name} (letters, digits, {@code -} and {@code _}): small texts that every instance
     * sharing the store sees, such as the console's snapshots. Ask once and keep the answer.
     */
    SharedEntries sharedEntries(String name);

    /**
     * How the store is doing: what it is, the cluster members it sees, and the calls it could not decide in the last
     * minute. Cheap enough to call for every health check or metrics scrape; never throws.
     */
    StoreHealth health();

    /**
     * The services of a store on its own, with no cluster: no overrides (none can be set), entries shared with no one
     * but the returned object's callers, and the health {@link StoreHealth#LOCAL}.
     */
    static StoreServices alone() {
        return inMemory(LimitOverrides.unsupported(), TimeSource.system());
    }

    /** Services in this JVM's memory: {@code overrides}, entries on {@code time}, the health {@code LOCAL}. */
    static StoreServices inMemory(LimitOverrides overrides, TimeSource time) {
        Map<String, SharedEntries> shared = new ConcurrentHashMap<>();
        return new StoreServices() {
            @Override
            public LimitOverrides overrides() {
                return overrides;
            }

            @Override
            public SharedEntries sharedEntries(String name) {
                return shared.computeIfAbsent(name, any -> SharedEntries.inMemory(time));
            }

            @Override
            public StoreHealth health() {
                return StoreHealth.LOCAL;
            }
        };
    }

    /** These services, their health passed through {@code amend} each time it is asked for. */
    default StoreServices withHealth(UnaryOperator<StoreHealth> amend) {
        StoreServices services = this;
        return new StoreServices() {
            @Override
            public LimitOverrides overrides() {
                return services.overrides();
            }

            @Override
            public SharedEntries sharedEntries(String name) {
                return services.sharedEntries(name);
            }

            @Override
            public StoreHealth health() {
                return amend.apply(services.health());
            }
        };
    }
}
