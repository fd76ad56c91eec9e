package dev.sluice.hazelcast;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
    public static final class Builder extends ClusterOptionsBuilder<Builder> {
        private Duration startWait = DEFAULT_START_WAIT;

        private Builder() {
        }

        @Override
        Builder self() {
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

        /**
         * The options.
         *
         * @throws IllegalArgumentException if a configuration file is given together with a simple setting (which the
         *     file holds itself)
         */
        public ClientOptions build() {
            if (configFile != null) {
                refuseSimpleSettingsBeside("configFile");
            }
            return new ClientOptions(this);
        }
    }
}
