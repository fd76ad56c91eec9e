package dev.sluice.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.HazelcastClientOfflineException;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig.ReconnectMode;
import com.hazelcast.client.config.XmlClientConfigBuilder;
import com.hazelcast.client.config.YamlClientConfigBuilder;
import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.InvalidConfigurationException;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.config.MergePolicyConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleListener;
import com.hazelcast.map.IMap;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.CounterStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link CounterStore} in a Hazelcast {@link IMap}, shared by every application instance that joins the cluster.
 *
 * <p>Each decision is one entry-processor call on the key ({@code executeOnKey}, or {@code submitToKey} for
 * {@link #applyAsync}): the member that owns the key reads its own time (see {@link #TIME_SOURCE_KEY}), runs
 * {@link Policy#apply} on the key's state and stores the result, atomically, then writes the computed state to one
 * synchronous backup (by default). Entries expire once their state is back to full capacity (their time to live is
 * set by the processor), and each member holds at most {@link Builder#maxKeysPerMember} keys (least recently used
 * keys are evicted first, forgetting what they had consumed). All values and processors use Hazelcast's
 * {@code IdentifiedDataSerializable}, registered by the jar itself: members need the Sluice jar on their class path
 * and nothing else.
 *
 * <p>Three ways to reach a cluster, chosen on the {@link Builder}: start an embedded member (the default), connect
 * as a client to an existing cluster, or use a {@link HazelcastInstance} the application already has.
 *
 * <p>Calls block for as long as Hazelcast takes (its invocation timeout is two minutes by default): wrap the store
 * in a {@link dev.sluice.store.FailurePolicyStore} to bound the wait and decide what happens when the cluster fails.
 * Thread-safe.
 */
public final class HazelcastCounterStore implements CounterStore {

    private static final System.Logger LOG = System.getLogger(HazelcastCounterStore.class.getName());

    /**
     * The key under which a member's user context ({@link Config#getUserContext()}) may hold a {@link TimeSource}
     * for the decisions that member makes, instead of Hazelcast's cluster time. For tests and simulations; every
     * member of a cluster must then share one timeline.
     */
    public static final String TIME_SOURCE_KEY = "dev.sluice.timeSource";

    /** The name of the counters map unless the builder says otherwise. */
    public static final String DEFAULT_MAP_NAME = "sluice-counters";

    private final HazelcastInstance instance;
    private final String mapName;
    /** Got on first use: a client that has not yet connected cannot make the proxy. */
    private volatile IMap<String, CounterState> map;
    private final boolean ownsInstance;

    private HazelcastCounterStore(HazelcastInstance instance, String mapName, boolean ownsInstance) {
        CallbackExecutor.avoidThreadPerTask();
        this.instance = instance;
        this.mapName = mapName;
        this.ownsInstance = ownsInstance;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        return map().executeOnKey(key, new ApplyProcessor(policy, cost, maxDelayNanos)).decision();
    }

    /**
     * Like {@link #apply}, completing when the owning member answers, on Hazelcast's default async executor (never a
     * partition or I/O thread; see {@code CallbackExecutor} for machines with two CPUs or fewer).
     */
    @Override
    public CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return map().submitToKey(key, new ApplyProcessor(policy, cost, maxDelayNanos))
                .thenApply(DecisionResult::decision);
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        return map().executeOnKey(key, new PeekProcessor(policy, cost)).decision();
    }

    @Override
    public CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        return map().submitToKey(key, new PeekProcessor(policy, cost))
                .thenApply(DecisionResult::decision);
    }

    /**
     * The Java deserialization filter of the builder's simple configurations: only JDK and Hazelcast classes, minus
     * Hazelcast's built-in list of known gadget classes. Hazelcast still Java-serializes the exceptions members send
     * each other, which is why the JDK and Hazelcast stay allowed. Put it in a configuration of your own with
     * {@code config.getSerializationConfig().setJavaSerializationFilterConfig(...)}.
     */
    public static JavaSerializationFilterConfig javaSerializationFilter() {
        return new JavaSerializationFilterConfig()
                .setWhitelist(new ClassFilter().addPrefixes("java.", "com.hazelcast."));
    }

    /** The number of keys in the cluster, counting expired keys Hazelcast has not yet removed. */
    public int size() {
        return map().size();
    }

    private IMap<String, CounterState> map() {
        IMap<String, CounterState> known = map;
        if (known == null) {
            known = instance.getMap(mapName);
            map = known;
        }
        return known;
    }

    /** The Hazelcast member or client this store talks through. */
    public HazelcastInstance instance() {
        return instance;
    }

    /** Shuts down the embedded member or the client this store started; leaves an instance it was given alone. */
    @Override
    public void close() {
        if (ownsInstance) {
            instance.shutdown();
        }
    }

    /**
     * Builds a {@link HazelcastCounterStore}. Not thread-safe.
     *
     * <p>Embedded member (default): a member with {@link #clusterName}, listening on {@link #port} of
     * {@link #bindAddress}, joining the {@link #members} over TCP-IP (multicast and auto-detection off); or, with
     * {@link #memberConfig(Path)}, a member configured entirely by a {@code hazelcast.yaml}/{@code .xml} file.
     * Client: {@link #client()} connects to {@link #members} of {@link #clusterName}, or as {@link #clientConfig(Path)}
     * says; {@link #build()} waits at most {@link #clientStartWait} for the first connection. Existing instance:
     * {@link #instance(HazelcastInstance)}.
     *
     * <p>The counters map ({@link #mapName}) gets {@link #backupCount} synchronous backups, a per-member bound of
     * {@link #maxKeysPerMember} keys and the {@link MoreConsumedMergePolicy}, unless the configuration already has a
     * map of that name, which is then used as it is. A client (on every connection) or an existing instance adds this
     * map configuration to the running cluster (Hazelcast's dynamic configuration) when the cluster has none for that
     * name.
     *
     * <p>A member or client configured by the simple settings refuses Java deserialization of anything outside the JDK
     * and Hazelcast ({@link HazelcastCounterStore#javaSerializationFilter()}): the store never needs it, and a
     * Java-serialized object from a peer is how deserialization gadgets arrive. A configuration given as a file or
     * object is used as it is; set the same filter there.
     */
    public static final class Builder {

        private String clusterName = "sluice";
        private int port = NetworkConfig.DEFAULT_PORT;
        private String bindAddress;
        private final List<String> members = new ArrayList<>();
        private final Map<String, String> properties = new LinkedHashMap<>();
        private Path memberConfigFile;
        private Config memberConfig;
        private boolean client;
        private Path clientConfigFile;
        private HazelcastInstance existing;
        private String mapName = DEFAULT_MAP_NAME;
        private int backupCount = 1;
        private int maxKeysPerMember = 1_000_000;
        private TimeSource memberTime;
        private Duration clientStartWait = Duration.ofSeconds(5);

        private Builder() {
        }

        /** The cluster to form or join; default {@code "sluice"}. */
        public Builder clusterName(String name) {
            this.clusterName = Objects.requireNonNull(name, "clusterName");
            return this;
        }

        /** The port an embedded member listens on (the next free one above it if taken); default 5701. */
        public Builder port(int newPort) {
            this.port = newPort;
            return this;
        }

        /** The network interface an embedded member binds to and announces, such as {@code 127.0.0.1}. */
        public Builder bindAddress(String address) {
            this.bindAddress = Objects.requireNonNull(address, "bindAddress");
            return this;
        }

        /**
         * Addresses ({@code host} or {@code host:port}) of cluster members: the TCP-IP member list an embedded member
         * joins, or the members a client connects to.
         */
        public Builder members(String... addresses) {
            members.addAll(List.of(addresses));
            return this;
        }

        /** A Hazelcast property ({@code hazelcast.*}) for the embedded member or the client. */
        public Builder property(String name, String value) {
            properties.put(name, value);
            return this;
        }

        /** Configures the embedded member from a {@code hazelcast.yaml}, {@code .yml} or {@code .xml} file instead. */
        public Builder memberConfig(Path file) {
            this.memberConfigFile = Objects.requireNonNull(file, "file");
            return this;
        }

        /** Configures the embedded member with this complete configuration instead of the simple settings. */
        public Builder memberConfig(Config config) {
            this.memberConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Connects as a client to an existing cluster instead of starting a member. */
        public Builder client() {
            this.client = true;
            return this;
        }

        /**
         * How long {@link #build()} waits for a client's first connection (default 5 s). A client of the simple
         * settings then goes on without one; a client configuration file decides that itself
         * ({@code async-start}).
         */
        public Builder clientStartWait(Duration wait) {
            if (wait.isNegative()) {
                throw new IllegalArgumentException("clientStartWait must not be negative, got " + wait);
            }
            this.clientStartWait = wait;
            return this;
        }

        /** Connects as a client configured by a {@code hazelcast-client.yaml}, {@code .yml} or {@code .xml} file. */
        public Builder clientConfig(Path file) {
            this.clientConfigFile = Objects.requireNonNull(file, "file");
            this.client = true;
            return this;
        }

        /** Uses an instance (member or client) the application already has; {@link #close()} leaves it running. */
        public Builder instance(HazelcastInstance instance) {
            this.existing = Objects.requireNonNull(instance, "instance");
            return this;
        }

        /** The name of the counters map; default {@value HazelcastCounterStore#DEFAULT_MAP_NAME}. */
        public Builder mapName(String name) {
            this.mapName = Objects.requireNonNull(name, "mapName");
            return this;
        }

        /** Synchronous backups of each key; default 1. */
        public Builder backupCount(int count) {
            this.backupCount = count;
            return this;
        }

        /** The most keys one member holds before evicting the least recently used; default 1,000,000. */
        public Builder maxKeysPerMember(int max) {
            this.maxKeysPerMember = max;
            return this;
        }

        /**
         * The time an embedded member decides by, instead of Hazelcast's cluster time; stored in its user context
         * under {@link #TIME_SOURCE_KEY}. For tests.
         */
        public Builder memberTimeSource(TimeSource time) {
            this.memberTime = Objects.requireNonNull(time, "time");
            return this;
        }

        /** Starts the member or client (when one is to be started) and returns the store. */
        public HazelcastCounterStore build() {
            if (existing != null) {
                addMapConfigToCluster(existing);
                return new HazelcastCounterStore(existing, mapName, false);
            }
            if (client) {
                return new HazelcastCounterStore(startClient(), mapName, true);
            }
            return new HazelcastCounterStore(Hazelcast.newHazelcastInstance(toMemberConfig()), mapName, true);
        }

        /** The configuration the embedded member is started with. */
        Config toMemberConfig() {
            Config config = memberConfig != null ? memberConfig : memberConfigFile != null
                    ? loadMemberConfig(memberConfigFile) : simpleMemberConfig();
            if (config.getMapConfigOrNull(mapName) == null) {
                config.addMapConfig(countersMapConfig());
            }
            properties.forEach(config::setProperty);
            if (memberTime != null) {
                config.getUserContext().put(TIME_SOURCE_KEY, memberTime);
            }
            return config;
        }

        private Config simpleMemberConfig() {
            Config config = new Config().setClusterName(clusterName);
            config.getSerializationConfig().setJavaSerializationFilterConfig(javaSerializationFilter());
            // Counters expire all the time (each once back to full capacity). Hazelcast's background sweep is tuned for
            // rare expiry: each 5 s round it visits a few partitions and scans a tenth of each, so idle counters would
            // linger up to the size bound. Scan every partition whole each round instead: a check per entry per 5 s.
            config.setProperty("hazelcast.internal.map.expiration.cleanup.operation.count",
                    String.valueOf(Integer.MAX_VALUE));
            config.setProperty("hazelcast.internal.map.expiration.cleanup.percentage", "100");
            NetworkConfig network = config.getNetworkConfig().setPort(port);
            JoinConfig join = network.getJoin();
            join.getMulticastConfig().setEnabled(false);
            join.getAutoDetectionConfig().setEnabled(false);
            join.getTcpIpConfig().setEnabled(true).setMembers(members.isEmpty() && bindAddress != null
                    ? List.of(bindAddress) : members);
            if (bindAddress != null) {
                network.getInterfaces().setEnabled(true).addInterface(bindAddress);
                config.setProperty("hazelcast.socket.bind.any", "false");
            }
            return config;
        }

        private static Config loadMemberConfig(Path file) {
            try {
                return Config.loadFromFile(file.toFile());
            } catch (FileNotFoundException e) {
                throw new UncheckedIOException("no Hazelcast member configuration at " + file, e);
            }
        }

        /**
         * Starts the client and waits up to {@link #clientStartWait} for its first connection. A client of the simple
         * settings starts without one, so that an application starts while the cluster is down (or unreachable under
         * the name given); its calls fail, and the failure policy decides, until it connects. The counters map's
         * configuration goes to the cluster on every connection, since a cluster restarted whole has forgotten it.
         */
        private HazelcastInstance startClient() {
            ClientConfig config = clientConfig();
            AtomicReference<HazelcastInstance> started = new AtomicReference<>();
            CountDownLatch firstConnection = new CountDownLatch(1);
            config.addListenerConfig(new ListenerConfig((LifecycleListener) event -> {
                if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_CONNECTED) {
                    firstConnection.countDown();
                    HazelcastInstance connected = started.get();
                    if (connected != null) {
                        // Not on the event thread: adding configuration is a call to the cluster.
                        CompletableFuture.runAsync(() -> addMapConfigWhileConnected(connected));
                    }
                }
            }));
            HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
            started.set(client);
            try {
                if (firstConnection.await(clientStartWait.toNanos(), TimeUnit.NANOSECONDS)) {
                    addMapConfigWhileConnected(client);
                } else {
                    LOG.log(System.Logger.Level.WARNING, "Hazelcast client not connected to cluster \"{0}\" at {1} "
                            + "after {2} ms; decisions follow the failure policy until it connects",
                            config.getClusterName(), config.getNetworkConfig().getAddresses(),
                            clientStartWait.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return client;
        }

        private void addMapConfigWhileConnected(HazelcastInstance client) {
            try {
                addMapConfigToCluster(client);
            } catch (HazelcastClientOfflineException disconnectedAgain) {
                // The next connection adds it.
            }
        }

        private ClientConfig clientConfig() {
            ClientConfig config;
            if (clientConfigFile != null) {
                config = loadClientConfig(clientConfigFile);
            } else {
                config = new ClientConfig().setClusterName(clusterName);
                config.getSerializationConfig().setJavaSerializationFilterConfig(javaSerializationFilter());
                config.getNetworkConfig().setAddresses(new ArrayList<>(members));
                // While the cluster is unreachable, fail calls at once (the failure policy decides) rather than
                // queueing them until the client reconnects.
                config.getConnectionStrategyConfig().setReconnectMode(ReconnectMode.ASYNC).setAsyncStart(true);
            }
            properties.forEach(config::setProperty);
            return config;
        }

        private static ClientConfig loadClientConfig(Path file) {
            String name = file.getFileName().toString();
            try {
                return name.endsWith(".xml")
                        ? new XmlClientConfigBuilder(file.toFile()).build()
                        : new YamlClientConfigBuilder(file.toFile()).build();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read Hazelcast client configuration " + file, e);
            }
        }

        private void addMapConfigToCluster(HazelcastInstance instance) {
            try {
                instance.getConfig().addMapConfig(countersMapConfig());
            } catch (InvalidConfigurationException e) {
                // The cluster already has its own configuration for this map (static, or added by another node
                // with other settings): that one stands.
            }
        }

        private MapConfig countersMapConfig() {
            return new MapConfig(mapName)
                    .setBackupCount(backupCount)
                    .setAsyncBackupCount(0)
                    // Processors read and replace whole values: storing objects saves a deserialization per call.
                    .setInMemoryFormat(InMemoryFormat.OBJECT)
                    .setEvictionConfig(new EvictionConfig()
                            .setEvictionPolicy(EvictionPolicy.LRU)
                            .setMaxSizePolicy(MaxSizePolicy.PER_NODE)
                            .setSize(maxKeysPerMember))
                    .setMergePolicyConfig(new MergePolicyConfig(MoreConsumedMergePolicy.class.getName(),
                            MergePolicyConfig.DEFAULT_BATCH_SIZE));
        }
    }
}
