package dev.sluice.hazelcast;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How {@link HazelcastCounterStore#connectClient} connects to an existing cluster: either the simple settings (a
 * client of {@link Builder#clusterName} connecting to {@link Builder#members}, refusing Java deserialization outside
 * the JDK and Hazelcast, failing calls at once while disconnected) or a client configuration file, never both.
 * Immutable and thread-safe; built by {@link #builder()}, which checks every value.
 */
public final class ClientOptions {

    /** How long {@link HazelcastCounterStore#connectClient} waits for the first connection unless set: 5 s. */
    public static final Duration DEFAULT_START_WAIT = Duration.ofSeconds(5);

    private final String clusterName;
    private final List<String> members;
    private final @Nullable Path configFile;
    private final Duration startWait;
    private final Map<String, String> properties;
    private final StoreOptions store;

    private ClientOptions(Builder builder) {
        this.clusterName = builder.clusterName;
        this.members = List.copyOf(builder.members);
        this.configFile = builder.configFile;
        this.startWait = builder.startWait;
        this.properties = Map.copyOf(builder.properties);
        this.store = builder.store;
    }

    public static Builder builder() {
        return new Builder();
    }

    String clusterName() {
        return clusterName;
    }

    List<String> members() {
        return members;
    }

    @Nullable Path configFile() {
        return configFile;
    }

    Duration startWait() {
        return startWait;
    }

    Map<String, String> properties() {
        return properties;
    }

    StoreOptions store() {
        return store;
    }

    /** Builds {@link ClientOptions}; every value is checked when set, combinations by {@link #build()}. */
    public static final class Builder {
        private String clusterName = MemberOptions.DEFAULT_CLUSTER_NAME;
        private final List<String> members = new ArrayList<>();
        private final List<String> simpleSettingsSet = new ArrayList<>();
        private @Nullable Path configFile;
        private Duration startWait = DEFAULT_START_WAIT;
        private final Map<String, String> properties = new LinkedHashMap<>();
        private StoreOptions store = StoreOptions.defaults();

        private Builder() {
        }

        /** The cluster to connect to; default {@value MemberOptions#DEFAULT_CLUSTER_NAME}. A simple setting. */
        public Builder clusterName(String name) {
            this.clusterName = Checks.text(name, "clusterName");
            return simple("clusterName");
        }

        /**
         * Adds members to connect to: {@code host} or {@code host:port}; default Hazelcast's, this machine's ports
         * 5701 to 5703. A simple setting.
         *
         * @throws IllegalArgumentException for an address that is empty or has a port outside 1 to 65535
         */
        public Builder members(String... addresses) {
            return members(List.of(addresses));
        }

        /** As {@link #members(String...)}. */
        public Builder members(List<String> addresses) {
            members.addAll(Checks.addresses(addresses, "members"));
            return simple("members");
        }

        /**
         * Configures the client entirely by a {@code hazelcast-client.yaml}, {@code .yml} or {@code .xml} file instead
         * of the simple settings; the file decides whether the client starts without a connection
         * ({@code async-start}) and its serialization settings (set
         * {@link HazelcastCounterStore#javaSerializationFilter()} there).
         */
        public Builder configFile(Path file) {
            this.configFile = Objects.requireNonNull(file, "configFile");
            return this;
        }

        /**
         * How long {@link HazelcastCounterStore#connectClient} waits for the first connection, zero or more; default
         * {@link ClientOptions#DEFAULT_START_WAIT}. A client of the simple settings then goes on without one: the
         * application starts while the cluster is down, and the failure policy decides until the client connects.
         */
        public Builder startWait(Duration wait) {
            if (wait.isNegative()) {
                throw new IllegalArgumentException("startWait must not be negative, got " + wait);
            }
            this.startWait = wait;
            return this;
        }

        /** A Hazelcast property ({@code hazelcast.*}), set on top of any configuration. */
        public Builder property(String name, String value) {
            properties.put(Checks.text(name, "property name"), Objects.requireNonNull(value, "property value"));
            return this;
        }

        /**
         * The counters map, whose configuration the client adds to the cluster; default
         * {@link StoreOptions#defaults()}.
         */
        public Builder store(StoreOptions options) {
            this.store = Objects.requireNonNull(options, "store");
            return this;
        }

        private Builder simple(String setting) {
            if (!simpleSettingsSet.contains(setting)) {
                simpleSettingsSet.add(setting);
            }
            return this;
        }

        /**
         * The options.
         *
         * @throws IllegalArgumentException if a configuration file is given together with a simple setting (which the
         *     file holds itself)
         */
        public ClientOptions build() {
            if (configFile != null && !simpleSettingsSet.isEmpty()) {
                throw new IllegalArgumentException("configFile given together with "
                        + String.join(", ", simpleSettingsSet) + ": the configuration sets these itself");
            }
            return new ClientOptions(this);
        }
    }
}
