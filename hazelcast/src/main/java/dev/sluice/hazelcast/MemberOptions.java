package dev.sluice.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import dev.sluice.TimeSource;
import dev.sluice.hazelcast.internal.wire.MemberClock;
import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How {@link HazelcastCounterStore#startMember} starts an embedded member: either the simple settings (a member of
 * {@link Builder#clusterName}, listening on {@link Builder#port} of {@link Builder#bindAddress}, this machine's
 * {@value #DEFAULT_BIND_ADDRESS} unless set, joining {@link Builder#members} over TCP-IP with multicast and
 * auto-detection off, refusing Java deserialization outside the JDK and Hazelcast) or a complete configuration
 * ({@link Builder#configFile} or {@link Builder#config}), never both. Immutable and thread-safe; built by
 * {@link #builder()}, which checks every value.
 */
public final class MemberOptions {

    /** The cluster a member forms or joins, and a client connects to, unless set: {@code sluice}. */
    public static final String DEFAULT_CLUSTER_NAME = ClusterOptionsBuilder.DEFAULT_CLUSTER_NAME;

    /** The port a member listens on unless set (the next free one above it if taken): 5701. */
    public static final int DEFAULT_PORT = NetworkConfig.DEFAULT_PORT;

    /**
     * The interface a member of the simple settings binds to unless set: this machine only. Whoever reaches a member's
     * port under the cluster's name reads and changes every counter, so a member reaches the network only when told.
     */
    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";

    private final String clusterName;
    private final int port;
    private final String bindAddress;
    private final List<String> members;
    private final @Nullable Path configFile;
    private final @Nullable Config config;
    private final Map<String, String> properties;
    private final StoreOptions store;
    private final @Nullable TimeSource timeSource;

    private MemberOptions(Builder builder) {
        this.clusterName = builder.clusterName;
        this.port = builder.port;
        this.bindAddress = builder.bindAddress;
        this.members = List.copyOf(builder.members);
        this.configFile = builder.configFile;
        this.config = builder.config;
        this.properties = Map.copyOf(builder.properties);
        this.store = builder.store;
        this.timeSource = builder.timeSource;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The configuration the member starts with: the simple settings', the file's (read now) or the given one (this
     * very object), with the store's maps added unless it has maps of their names, and the properties and time source
     * of these options. For tests and tools that change a setting before starting the member with
     * {@link Builder#config}.
     *
     * @throws java.io.UncheckedIOException if the configuration file cannot be read
     */
    public Config toConfig() {
        Config given = config();
        Path file = configFile();
        Config config = given != null ? given : file != null ? loadMemberConfig(file) : simpleMemberConfig();
        for (MapConfig map : store().toMapConfigs()) {
            if (config.getMapConfigOrNull(map.getName()) == null) {
                config.addMapConfig(map);
            }
        }
        properties().forEach(config::setProperty);
        if (timeSource() != null) {
            config.getUserContext().put(MemberClock.TIME_SOURCE_KEY, timeSource());
        }
        return config;
    }

    private Config simpleMemberConfig() {
        Config config = new Config().setClusterName(clusterName());
        config.getSerializationConfig().setJavaSerializationFilterConfig(
                ClusterSetup.javaSerializationFilter());
        // Counters expire all the time (each once back to full capacity). Hazelcast's background sweep is tuned for
        // rare expiry: each 5 s round it visits a few partitions and scans a tenth of each, so idle counters would
        // linger up to the size bound. Scan every partition whole each round instead: a check per entry per 5 s.
        config.setProperty("hazelcast.internal.map.expiration.cleanup.operation.count",
                String.valueOf(Integer.MAX_VALUE));
        config.setProperty("hazelcast.internal.map.expiration.cleanup.percentage", "100");
        NetworkConfig network = config.getNetworkConfig().setPort(port());
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        String bindAddress = bindAddress();
        join.getTcpIpConfig().setEnabled(true).setMembers(members().isEmpty() ? List.of(bindAddress) : members());
        network.getInterfaces().setEnabled(true).addInterface(bindAddress);
        config.setProperty("hazelcast.socket.bind.any", "false");
        return config;
    }

    private static Config loadMemberConfig(Path file) {
        try {
            return Config.loadFromFile(file.toFile());
        } catch (FileNotFoundException e) {
            throw new UncheckedIOException("no Hazelcast member configuration at " + file, e);
        }
    }

    String clusterName() {
        return clusterName;
    }

    int port() {
        return port;
    }

    String bindAddress() {
        return bindAddress;
    }

    List<String> members() {
        return members;
    }

    @Nullable Path configFile() {
        return configFile;
    }

    @Nullable Config config() {
        return config;
    }

    Map<String, String> properties() {
        return properties;
    }

    StoreOptions store() {
        return store;
    }

    @Nullable TimeSource timeSource() {
        return timeSource;
    }

    /** Builds {@link MemberOptions}; every value is checked when set, combinations by {@link #build()}. */
    public static final class Builder extends ClusterOptionsBuilder<Builder> {
        private int port = DEFAULT_PORT;
        private String bindAddress = DEFAULT_BIND_ADDRESS;
        private @Nullable Config config;
        private @Nullable TimeSource timeSource;

        private Builder() {
        }

        @Override
        Builder self() {
            return this;
        }

        /**
         * The port to listen on, 1 to 65535 (the next free one above it if taken); default
         * {@value MemberOptions#DEFAULT_PORT}. A simple setting.
         */
        public Builder port(int newPort) {
            this.port = Checks.port(newPort, "port");
            return simple("port");
        }

        /**
         * The network interface to bind to and announce, such as {@code 10.0.0.11}; default
         * {@value MemberOptions#DEFAULT_BIND_ADDRESS}, this machine only. Without {@link #members}, the member joins
         * the members on this address. A simple setting.
         */
        public Builder bindAddress(String address) {
            this.bindAddress = Checks.text(address, "bindAddress");
            return simple("bindAddress");
        }

        /**
         * Configures the member entirely by this configuration (used, and changed, as it is) instead of the simple
         * settings, as {@link #configFile}.
         */
        public Builder config(Config memberConfig) {
            this.config = Objects.requireNonNull(memberConfig, "config");
            return this;
        }

        /**
         * The time the member decides by, instead of Hazelcast's cluster time; stored in its user context under
         * {@link HazelcastCounterStore#TIME_SOURCE_KEY}. For tests: every member of the cluster must share it.
         */
        public Builder timeSource(TimeSource time) {
            this.timeSource = Objects.requireNonNull(time, "timeSource");
            return this;
        }

        /**
         * The options.
         *
         * @throws IllegalArgumentException if both a configuration file and a configuration are given, or either of
         *     them together with a simple setting (which the configuration holds itself), or for members on other
         *     machines while the member binds to a loopback address (it could not join them)
         */
        public MemberOptions build() {
            if (configFile != null && config != null) {
                throw new IllegalArgumentException("configFile and config both given: give one configuration");
            }
            if (configFile != null || config != null) {
                refuseSimpleSettingsBeside(configFile != null ? "configFile" : "config");
            } else if (loopback(bindAddress)) {
                List<String> elsewhere = members.stream().filter(member -> !loopback(host(member))).toList();
                if (!elsewhere.isEmpty()) {
                    throw new IllegalArgumentException("members " + String.join(", ", elsewhere) + " are not on this "
                            + "machine, but the member binds to " + bindAddress + " (bindAddress, init-param "
                            + "hazelcast-interface; default " + DEFAULT_BIND_ADDRESS + "), which they cannot reach: "
                            + "set it to this machine's address on the network they share");
                }
            }
            return new MemberOptions(this);
        }

        /** The host of a member address: {@code host}, {@code host:port} or {@code [ipv6]:port}. */
        private static String host(String address) {
            if (address.startsWith("[")) {
                int close = address.indexOf(']');
                return close < 0 ? address : address.substring(1, close);
            }
            int colon = address.indexOf(':');
            return colon < 0 || colon != address.lastIndexOf(':') ? address : address.substring(0, colon);
        }

        /** Whether {@code host} names this machine's loopback interface (judged from its text: nothing resolved). */
        private static boolean loopback(String host) {
            return host.startsWith("127.") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1")
                    || host.equalsIgnoreCase("localhost");
        }
    }
}
