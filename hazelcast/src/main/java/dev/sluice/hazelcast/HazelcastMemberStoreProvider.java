package dev.sluice.hazelcast;

import dev.sluice.store.CounterStore;
import dev.sluice.store.CounterStoreProvider;
import java.util.Optional;
import java.util.Set;

/**
 * The store provider {@code hazelcast}: an embedded member started by {@link HazelcastCounterStore#startMember},
 * configured by the adapter's init-params. Found through {@link java.util.ServiceLoader}. Stateless and thread-safe.
 *
 * <table>
 *   <caption>init-params</caption>
 *   <tr><th>name</th><th>form</th><th>default</th></tr>
 *   <tr><td>{@code hazelcast-config}</td><td>a member YAML or XML file, used instead of all the settings below
 *       </td><td>none</td></tr>
 *   <tr><td>{@code hazelcast-cluster-name}</td><td>a name</td>
 *       <td>{@value MemberOptions#DEFAULT_CLUSTER_NAME}</td></tr>
 *   <tr><td>{@code hazelcast-members}</td><td>comma-separated {@code host:port} list for TCP-IP join</td>
 *       <td>the interface's address</td></tr>
 *   <tr><td>{@code hazelcast-port}</td><td>the member's port (1 to 65535)</td>
 *       <td>{@value MemberOptions#DEFAULT_PORT}, next free</td></tr>
 *   <tr><td>{@code hazelcast-interface}</td><td>the address the member binds to</td>
 *       <td>{@value InitParams#DEFAULT_INTERFACE}</td></tr>
 * </table>
 *
 * <p>The counters live in the map {@value HazelcastCounterStore#DEFAULT_MAP_NAME} followed by the namespace (none
 * for {@code /}). An adapter time source other than the system's becomes the member's time
 * ({@link MemberOptions.Builder#timeSource}).
 */
public final class HazelcastMemberStoreProvider implements CounterStoreProvider {

    /** This provider's name. */
    public static final String NAME = "hazelcast";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CounterStore open(Context context) {
        return HazelcastCounterStore.startMember(InitParams.member(context));
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
