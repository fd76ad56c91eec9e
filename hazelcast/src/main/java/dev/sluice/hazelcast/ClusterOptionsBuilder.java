package dev.sluice.hazelcast;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What {@link MemberOptions.Builder} and {@link ClientOptions.Builder} share: the cluster's name, the members, a
 * configuration file instead of the simple settings, Hazelcast properties and the counters map. Every value is checked
 * when set. Not thread-safe.
 *
 * @param <B> the builder itself
 */
abstract class ClusterOptionsBuilder<B extends ClusterOptionsBuilder<B>> {

    /** The cluster's name unless set: {@link MemberOptions#DEFAULT_CLUSTER_NAME}. */
    static final String DEFAULT_CLUSTER_NAME = "sluice";

    String clusterName = DEFAULT_CLUSTER_NAME;
    final List<String> members = new ArrayList<>();
    @Nullable Path configFile;
    final Map<String, String> properties = new LinkedHashMap<>();
    StoreOptions store = StoreOptions.defaults();
    private final List<String> simpleSettingsSet = new ArrayList<>();

    abstract B self();

    /** The cluster to form, join or connect to; default {@value #DEFAULT_CLUSTER_NAME}. A simple setting. */
    public B clusterName(String name) {
        this.clusterName = Checks.text(name, "clusterName");
        return simple("clusterName");
    }

    /**
     * Adds members to join over TCP-IP (a member) or to connect to (a client; default Hazelcast's, this machine's ports
     * 5701 to 5703): {@code host} or {@code host:port}. A simple setting.
     *
     * @throws IllegalArgumentException for an address that is empty or has a port outside 1 to 65535
     */
    public B members(String... addresses) {
        return members(List.of(addresses));
    }

    /** As {@link #members(String...)}. */
    public B members(List<String> addresses) {
        members.addAll(Checks.addresses(addresses, "members"));
        return simple("members");
    }

    /**
     * Configures the member ({@code hazelcast.yaml}, {@code .yml} or {@code .xml}) or the client
     * ({@code hazelcast-client.yaml}, {@code .yml} or {@code .xml}) entirely by this file instead of the simple
     * settings. A member's counters map is added unless the file has a map of its name; a client's file decides whether
     * it starts without a connection ({@code async-start}). The file's serialization settings are used as they are:
     * set {@link HazelcastCounterStore#javaSerializationFilter()} there.
     */
    public B configFile(Path file) {
        this.configFile = Objects.requireNonNull(file, "configFile");
        return self();
    }

    /** A Hazelcast property ({@code hazelcast.*}), set on top of any configuration. */
    public B property(String name, String value) {
        properties.put(Checks.text(name, "property name"), Objects.requireNonNull(value, "property value"));
        return self();
    }

    /**
     * The counters map (whose configuration a client adds to the cluster); default {@link StoreOptions#defaults()}.
     */
    public B store(StoreOptions options) {
        this.store = Objects.requireNonNull(options, "store");
        return self();
    }

    /** Notes that a simple setting was set. */
    B simple(String setting) {
        if (!simpleSettingsSet.contains(setting)) {
            simpleSettingsSet.add(setting);
        }
        return self();
    }

    /** Refuses a configuration ({@code what}) given together with a simple setting, which it holds itself. */
    void refuseSimpleSettingsBeside(String what) {
        if (!simpleSettingsSet.isEmpty()) {
            throw new IllegalArgumentException(what + " given together with " + String.join(", ", simpleSettingsSet)
                    + ": the configuration sets these itself");
        }
    }
}
