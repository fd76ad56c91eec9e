package dev.sluice.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig.ReconnectMode;
import com.hazelcast.client.config.XmlClientConfigBuilder;
import com.hazelcast.client.config.YamlClientConfigBuilder;
import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.InvalidConfigurationException;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/*
 * The cluster set-up behind HazelcastCounterStore's entry points (a member's configuration is MemberOptions'): the
 * client of ClientOptions (started waiting at most its start wait for the cluster, its map configuration sent on every
 * connection),
 * and the counters map configuration added to a running cluster. Kept apart from the store, which only makes calls.
 */

/** Configures and starts Hazelcast members and clients for {@link HazelcastCounterStore}. Stateless. */
final class ClusterSetup {

    /** How long a client that just connected keeps trying to add the map configuration. */
    private static final Duration MAP_CONFIG_RETRY = Duration.ofSeconds(10);

    // Under the store's name, where its users look for its messages.
    private static final System.Logger LOG = System.getLogger("dev.sluice.hazelcast.HazelcastCounterStore");

    private ClusterSetup() {
    }

    /** The Java deserialization filter of the simple settings; see HazelcastCounterStore.javaSerializationFilter. */
    static JavaSerializationFilterConfig javaSerializationFilter() {
        return new JavaSerializationFilterConfig()
                .setWhitelist(new ClassFilter().addPrefixes("java.", "com.hazelcast."));
    }

    /**
     * Starts the client and waits up to its start wait for the first connection. A client of the simple settings
     * starts without one, so that an application starts while the cluster is down (or unreachable under the name
     * given); its calls fail, and the failure policy decides, until it connects. The counters map's configuration goes
     * to the cluster on every connection, since a cluster restarted whole has forgotten it; then, on a connection after
     * the start, {@code afterConnection} runs (once set), in the same background thread. {@code mapConfigured} says
     * whether the configuration is on the cluster since the latest connection: nothing may touch the map before, or the
     * members create it with Hazelcast's defaults; {@code connected} whether the client is connected now.
     */
    static HazelcastInstance startClient(ClientOptions options, AtomicBoolean mapConfigured, AtomicBoolean connected,
                                         AtomicReference<@Nullable Runnable> afterConnection, MapWarnings warnings) {
        ClientConfig config = clientConfig(options);
        StoreOptions store = options.store();
        AtomicReference<@Nullable HazelcastInstance> started = new AtomicReference<>();
        CountDownLatch firstConnection = new CountDownLatch(1);
        LifecycleListener connections = followConnections(started::get, store, mapConfigured, connected,
                afterConnection, warnings);
        config.addListenerConfig(new ListenerConfig((LifecycleListener) event -> {
            if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_CONNECTED) {
                firstConnection.countDown();
            }
            connections.stateChanged(event);
        }));
        HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
        started.set(client);
        try {
            if (firstConnection.await(options.startWait().toNanos(), TimeUnit.NANOSECONDS)
                    && addMapConfigWhileConnected(client, store, warnings)) {
                mapConfigured.set(true);
            } else if (firstConnection.getCount() > 0) {
                LOG.log(System.Logger.Level.WARNING, "Hazelcast client not connected to cluster \"{0}\" at {1} "
                        + "after {2} ms; decisions follow the failure policy until it connects",
                        config.getClusterName(), config.getNetworkConfig().getAddresses(),
                        options.startWait().toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return client;
    }

    /**
     * Follows a client's connections for a store. On each connection, in a thread of its own, it adds the counters
     * map's configuration; then, if no other connection or disconnection came meanwhile, it marks the map configured
     * and runs {@code afterConnection} (once set). On each disconnection it marks the map not configured. It keeps
     * {@code clientConnected} saying whether the client is connected, so that a call refused meanwhile says which of
     * the two it waits for. Before {@code client} gives an instance (during the start) a connection is left to the
     * start, which adds the configuration itself.
     */
    static LifecycleListener followConnections(Supplier<@Nullable HazelcastInstance> client, StoreOptions store,
                                               AtomicBoolean mapConfigured, AtomicBoolean clientConnected,
                                               AtomicReference<@Nullable Runnable> afterConnection,
                                               MapWarnings warnings) {
        AtomicLong changes = new AtomicLong();
        return event -> {
            if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_DISCONNECTED) {
                changes.incrementAndGet();
                mapConfigured.set(false);
                clientConnected.set(false);
                return;
            }
            if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_CONNECTED) {
                clientConnected.set(true);
            }
            HazelcastInstance connected = client.get();
            if (event.getState() != LifecycleEvent.LifecycleState.CLIENT_CONNECTED || connected == null) {
                return;
            }
            long connection = changes.incrementAndGet();
            inBackground("sluice-connected", () -> {
                if (addMapConfigWhileConnected(connected, store, warnings) && changes.get() == connection) {
                    mapConfigured.set(true);
                    Runnable after = afterConnection.get();
                    if (after != null) {
                        after.run();
                    }
                }
            });
        };
    }

    /**
     * Runs a call to the cluster that a lifecycle event asks for: not on the event thread, and not on a shared pool,
     * whose only thread on a small machine a call to a cluster that went away would hold for Hazelcast's invocation
     * timeout (two minutes), stalling everything queued behind it. Reconnections are rare; a thread each is cheap.
     */
    static void inBackground(String name, Runnable call) {
        Thread thread = new Thread(call, name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Adds the map configuration once the client can call the cluster: the connected event may come before the
     * client takes calls, and a call may fail while the cluster settles, so a failure is retried for a while; a client
     * that could not add it gets it on its next connection, and its calls fail to the failure policy until then.
     * Whether it was added.
     */
    private static boolean addMapConfigWhileConnected(HazelcastInstance client, StoreOptions store,
                                                      MapWarnings warnings) {
        long deadline = System.nanoTime() + MAP_CONFIG_RETRY.toNanos();
        while (client.getLifecycleService().isRunning()) {
            try {
                addMapConfig(client, store, warnings);
                return true;
            } catch (RuntimeException notYet) {
                if (System.nanoTime() > deadline) {
                    LOG.log(System.Logger.Level.WARNING, "Sluice could not add the counters map''s configuration to"
                            + " the cluster within {0} s ({1}); decisions follow the failure policy until the next"
                            + " connection", MAP_CONFIG_RETRY.toSeconds(), notYet.getClass().getName());
                    return false;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return false;
    }

    private static ClientConfig clientConfig(ClientOptions options) {
        ClientConfig config;
        Path file = options.configFile();
        if (file != null) {
            config = loadClientConfig(file);
        } else {
            config = new ClientConfig().setClusterName(options.clusterName());
            config.getSerializationConfig().setJavaSerializationFilterConfig(
                    javaSerializationFilter());
            config.getNetworkConfig().setAddresses(new ArrayList<>(options.members()));
            // While the cluster is unreachable, fail calls at once (the failure policy decides) rather than queueing
            // them until the client reconnects.
            config.getConnectionStrategyConfig().setReconnectMode(ReconnectMode.ASYNC).setAsyncStart(true);
        }
        options.properties().forEach(config::setProperty);
        return config;
    }

    private static ClientConfig loadClientConfig(Path file) {
        String name = String.valueOf(file.getFileName());
        try {
            return name.endsWith(".xml")
                    ? new XmlClientConfigBuilder(file.toFile()).build()
                    : new YamlClientConfigBuilder(file.toFile()).build();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Hazelcast client configuration " + file, e);
        }
    }

    /**
     * Adds the store's maps' configurations to the running cluster (Hazelcast's dynamic configuration), unless the
     * cluster already has its own for a name, which {@code warnings} is told.
     */
    static void addMapConfig(HazelcastInstance instance, StoreOptions store, MapWarnings warnings) {
        for (MapConfig map : store.toMapConfigs()) {
            try {
                instance.getConfig().addMapConfig(map);
            } catch (InvalidConfigurationException e) {
                // The cluster already has its own configuration for this map (static, or added by another node with
                // other settings): that one stands, and the operator is told what it costs.
                warnings.found("Sluice: the cluster has its own configuration of map '" + map.getName() + "', which"
                        + " stands instead of Sluice's (in-memory format OBJECT, " + map.getBackupCount()
                        + " synchronous backup(s), no asynchronous ones); with another in-memory format every call"
                        + " deserializes the entry it changes, and a synchronised keys' shard is serialized whole on"
                        + " every call and backup (docs/cluster.md: The counters map). Hazelcast: " + e.getMessage());
            }
        }
    }

    /**
     * Tells {@code warnings} when this member keeps one of the store's maps in another in-memory format than Sluice's
     * ({@link com.hazelcast.config.InMemoryFormat#OBJECT}): a configuration file or a wildcard of its own that matches
     * the name. A client cannot read its cluster's configuration; {@link #addMapConfig} warns for it.
     */
    static void checkMapFormats(HazelcastInstance member, StoreOptions store, MapWarnings warnings) {
        for (MapConfig wanted : store.toMapConfigs()) {
            MapConfig kept = member.getConfig().findMapConfig(wanted.getName());
            if (kept.getInMemoryFormat() != wanted.getInMemoryFormat()) {
                warnings.found("Sluice: this member keeps map '" + wanted.getName() + "' in in-memory format "
                        + kept.getInMemoryFormat() + " (its configuration '" + kept.getName() + "'), not "
                        + wanted.getInMemoryFormat() + ": every call deserializes the entry it changes, and a"
                        + " synchronised keys' shard is serialized whole on every call and backup. Configure the map"
                        + " with in-memory format " + wanted.getInMemoryFormat() + ", or leave it to Sluice"
                        + " (docs/cluster.md: The counters map).");
            }
        }
    }
}
