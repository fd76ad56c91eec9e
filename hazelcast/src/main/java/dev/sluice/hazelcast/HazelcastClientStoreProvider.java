package dev.sluice.hazelcast;

import dev.sluice.store.CounterStore;
import dev.sluice.store.CounterStoreProvider;
import java.util.Optional;
import java.util.Set;

/**
 * The store provider {@code hazelcast-client}: a client of an existing cluster started by
 * {@link HazelcastCounterStore#connectClient}, configured by the adapter's init-params. Found through
 * {@link java.util.ServiceLoader}. Stateless and thread-safe.
 *
 * <table>
 *   <caption>init-params</caption>
 *   <tr><th>name</th><th>form</th><th>default</th></tr>
 *   <tr><td>{@code hazelcast-config}</td><td>a client YAML or XML file, used instead of the settings below</td>
 *       <td>none</td></tr>
 *   <tr><td>{@code hazelcast-cluster-name}</td><td>a name</td>
 *       <td>{@value MemberOptions#DEFAULT_CLUSTER_NAME}</td></tr>
 *   <tr><td>{@code hazelcast-members}</td><td>comma-separated {@code host:port} list to connect to</td>
 *       <td>this machine, ports 5701 to 5703</td></tr>
 * </table>
 *
 * <p>{@code hazelcast-port} and {@code hazelcast-interface} belong to a member and are refused. The counters live in
 * the map {@value HazelcastCounterStore#DEFAULT_MAP_NAME} followed by the namespace (none for {@code /}).
 */
public final class HazelcastClientStoreProvider implements CounterStoreProvider {

    /** This provider's name. */
    public static final String NAME = "hazelcast-client";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CounterStore open(Context context) {
        return HazelcastCounterStore.connectClient(InitParams.client(context));
    }

    /**
     * The init-params above and the store's ({@code hazelcast-incompatible-members}, {@code hazelcast-batching},
     * {@code hazelcast-leasing}, {@code hazelcast-lease-lifetime}, {@code hazelcast-max-slice},
     * {@code hazelcast-hot-key-rate}); an adapter refuses any other name beyond its own.
     */
    @Override
    public Optional<Set<String>> settingNames() {
        return Optional.of(InitParams.SETTINGS);
    }
}
