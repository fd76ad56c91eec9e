package dev.sluice.hazelcast;

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
public final class HazelcastClientStoreProvider extends HazelcastStoreProvider {

    /** This provider's name. */
    public static final String NAME = InitParams.CLIENT_STORE;

    /** Made by {@link java.util.ServiceLoader}. */
    public HazelcastClientStoreProvider() {
        super(NAME, context -> HazelcastCounterStore.connectClient(InitParams.client(context)));
    }
}
