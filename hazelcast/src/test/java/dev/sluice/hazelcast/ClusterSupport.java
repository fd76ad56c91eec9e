package dev.sluice.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.DistributedObject;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.Partition;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.ShardCall;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts real Hazelcast members for tests, in this JVM, on loopback and free ports, joined over TCP-IP with
 * multicast off, and waits for cluster conditions by bounded polling.
 */
public final class ClusterSupport {

    public static final String LOOPBACK = "127.0.0.1";

    /** What probe decisions count under: never exhausted by a test. */
    private static final Policy PROBE = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(1_000_000, Duration.ofHours(1)));

    /** How many ports {@link #freePort()} tries: those below the ephemeral range, or below 32768 if that is lower. */
    private static final int PORT_CANDIDATES = 16_384;

    private static final int FIRST_PORT = Math.min(ephemeralPortsStart(), 32_768) - PORT_CANDIDATES;

    private static final AtomicInteger NEXT_PORT = new AtomicInteger(new Random().nextInt(PORT_CANDIDATES));

    // Members leaving on purpose make Hazelcast warn at length; keep errors only. Held so the level sticks:
    // java.util.logging keeps loggers weakly.
    private static final Logger HAZELCAST_LOG = Logger.getLogger("com.hazelcast");

    static {
        HAZELCAST_LOG.setLevel(Level.SEVERE);
    }

    private ClusterSupport() {
    }

    /** A fresh cluster name, so concurrent or leftover clusters never join each other. */
    public static String newClusterName() {
        return "sluice-test-" + UUID.randomUUID();
    }

    /**
     * A port free now, for a member to bind a little later. Chosen below the kernel's ephemeral range: a port from that
     * range (what {@code new ServerSocket(0)} answers) can be taken before the member binds it by the local end of any
     * outgoing connection, even by one of the first member's own join attempts aimed at it (a TCP self-connect); a CI
     * run lost a member to that. Each call answers another port, so one JVM never hands the same port out twice.
     */
    public static int freePort() {
        for (int attempt = 0; attempt < PORT_CANDIDATES; attempt++) {
            int port = FIRST_PORT + Math.floorMod(NEXT_PORT.getAndIncrement(), PORT_CANDIDATES);
            try (ServerSocket socket = new ServerSocket(port)) {
                return socket.getLocalPort();
            } catch (IOException inUse) {
                // taken by something else: try the next one
            }
        }
        throw new IllegalStateException("no free port in " + FIRST_PORT + ".." + (FIRST_PORT + PORT_CANDIDATES - 1));
    }

    /** Where the kernel starts choosing outgoing connections' local ports (Linux; elsewhere the IANA range's start). */
    private static int ephemeralPortsStart() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            return Math.max(Integer.parseInt(range.split("\\s+")[0]), 1_024 + PORT_CANDIDATES);
        } catch (IOException | RuntimeException notLinux) {
            return 49_152;
        }
    }

    /** Hazelcast properties that make a small test cluster start, detect failures and expire entries quickly. */
    public static final Map<String, String> TEST_PROPERTIES = testProperties();

    private static Map<String, String> testProperties() {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("hazelcast.logging.type", "jdk");
        properties.put("hazelcast.phone.home.enabled", "false");
        properties.put("hazelcast.partition.count", "23");
        properties.put("hazelcast.wait.seconds.before.join", "0");
        properties.put("hazelcast.max.wait.seconds.before.join", "1");
        properties.put("hazelcast.heartbeat.interval.seconds", "1");
        properties.put("hazelcast.max.no.heartbeat.seconds", "6");
        properties.put("hazelcast.internal.map.expiration.task.period.seconds", "1");
        return Collections.unmodifiableMap(properties);
    }

    /** Options for one member listening on {@code port} and joining {@code joinPorts}, with test-speed settings. */
    static MemberOptions.Builder member(String clusterName, int port, List<Integer> joinPorts) {
        MemberOptions.Builder builder = MemberOptions.builder()
                .clusterName(clusterName)
                .port(port)
                .bindAddress(LOOPBACK)
                .members(joinPorts.stream().map(p -> LOOPBACK + ":" + p).toList());
        TEST_PROPERTIES.forEach(builder::property);
        return builder;
    }

    /** Options for a client of {@code clusterName} at {@code addresses}, with test-speed settings. */
    static ClientOptions.Builder client(String clusterName, String... addresses) {
        ClientOptions.Builder builder = ClientOptions.builder().clusterName(clusterName).members(addresses);
        TEST_PROPERTIES.forEach(builder::property);
        return builder;
    }

    /** Whether a decision through {@code store} is made by its remote store within its timeout (connected, warm). */
    static boolean decidesRemotely(FailurePolicyStore store) {
        return decidesRemotely(store, "probe");
    }

    /** Whether {@code store} decides a request on {@code key} remotely, neither failing nor timing out. */
    static boolean decidesRemotely(FailurePolicyStore store, String key) {
        long failures = store.failures() + store.timeouts();
        store.execute(key, Command.decide(PROBE, 1, 0));
        return store.failures() + store.timeouts() == failures;
    }

    /** The address a member listens on, for clients and joiners. */
    public static String address(HazelcastCounterStore member) {
        return LOOPBACK + ":" + member.instance().getCluster().getLocalMember().getAddress().getPort();
    }

    /** Starts {@code size} members deciding by {@code clocks} (one per member, or one shared), and waits for all. */
    public static List<HazelcastCounterStore> startCluster(int size, TimeSource... clocks) {
        return startCluster(size, StoreOptions.defaults(), clocks);
    }

    /** As {@link #startCluster(int, TimeSource...)}, each member's store with {@code store}. */
    static List<HazelcastCounterStore> startCluster(int size, StoreOptions store, TimeSource... clocks) {
        String clusterName = newClusterName();
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            ports.add(freePort());
        }
        List<HazelcastCounterStore> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            members.add(HazelcastCounterStore.startMember(member(clusterName, ports.get(i), ports)
                    .timeSource(clocks[Math.min(i, clocks.length - 1)])
                    .store(store)
                    .build()));
        }
        for (HazelcastCounterStore member : members) {
            awaitClusterSize(member.instance(), size);
        }
        // Each store's start probe touched a partition, so the first member laid out the partition table alone:
        // until the joiners' migrations finish, some keys have no backup, and a member lost takes their counts along.
        await(() -> members.get(0).instance().getPartitionService().isClusterSafe(), Duration.ofSeconds(60),
                "migrations to finish, every partition backed up");
        return members;
    }

    static void awaitClusterSize(HazelcastInstance instance, int size) {
        await(() -> instance.getCluster().getMembers().size() == size, Duration.ofSeconds(60),
                "a cluster of " + size + " members");
    }

    /**
     * Writes the member configuration file of a member listening on {@code port} and joining {@code joinPorts} into
     * {@code dir}, as an operator writes one (for the filter's {@code hazelcast-config}, or Spring Boot's
     * {@code spring.hazelcast.config}): loopback, TCP-IP, multicast and auto-detection off, the test-speed properties.
     */
    public static Path memberYaml(Path dir, String clusterName, int port, List<Integer> joinPorts) throws IOException {
        StringBuilder properties = new StringBuilder();
        TEST_PROPERTIES.forEach((name, value) -> properties.append("    ").append(name).append(": \"").append(value)
                .append("\"\n"));
        StringBuilder members = new StringBuilder();
        for (int joinPort : joinPorts) {
            members.append("            - ").append(LOOPBACK).append(':').append(joinPort).append('\n');
        }
        return Files.writeString(dir.resolve("hazelcast-" + port + ".yaml"), """
                hazelcast:
                  cluster-name: %s
                  properties:
                %s    hazelcast.socket.bind.any: "false"
                  network:
                    port:
                      port: %d
                      auto-increment: false
                    interfaces:
                      enabled: true
                      interfaces:
                        - %s
                    join:
                      multicast:
                        enabled: false
                      auto-detection:
                        enabled: false
                      tcp-ip:
                        enabled: true
                        member-list:
                %s""".formatted(clusterName, properties, port, LOOPBACK, members));
    }

    /** Waits until {@code condition} holds, polling every 50 ms, and fails after {@code timeout}. */
    public static void await(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }

    /**
     * A key, starting with {@code prefix}, whose partition (that of its map key) is owned by {@code store}'s member;
     * waits (up to 30 s) while a cluster that just formed has not yet given the member any partition.
     */
    static String keyOwnedBy(HazelcastCounterStore store, String prefix) {
        HazelcastInstance owner = store.instance();
        String[] found = new String[1];
        await(() -> {
            for (int i = 0; i < 10_000; i++) {
                String key = prefix + i;
                Partition partition = owner.getPartitionService().getPartition(store.mapKey(key));
                if (owner.getCluster().getLocalMember().equals(partition.getOwner())) {
                    found[0] = key;
                    return true;
                }
            }
            return false;
        }, Duration.ofSeconds(30), "a key owned by " + owner.getCluster().getLocalMember());
        return found[0];
    }

    /**
     * A key of a synchronised policy whose counters {@code store}'s member holds: its shard is in a partition that
     * member owns.
     */
    static String syncedKeyOwnedBy(HazelcastCounterStore store, String prefix) {
        HazelcastInstance owner = store.instance();
        String[] found = new String[1];
        await(() -> {
            for (int i = 0; i < 10_000; i++) {
                String key = prefix + i;
                Partition partition = owner.getPartitionService().getPartition(
                        ShardCall.shardKey(ShardCall.shardOf(store.mapKey(key))));
                if (owner.getCluster().getLocalMember().equals(partition.getOwner())) {
                    found[0] = key;
                    return true;
                }
            }
            return false;
        }, Duration.ofSeconds(30), "a synchronised key held by " + owner.getCluster().getLocalMember());
        return found[0];
    }

    /**
     * What anyone who knows the cluster's name and reaches {@code member}'s port reads: a plain Hazelcast client (no
     * Sluice settings, no filter) lists every map of the cluster and gives each entry as one line,
     * {@code map: key = value}, a string value as it is and any other value as its serialized bytes (ISO-8859-1, so
     * any text in them shows as it is written).
     */
    public static List<String> mapContents(HazelcastCounterStore member) {
        ClientConfig config = new ClientConfig().setClusterName(member.instance().getConfig().getClusterName());
        config.getNetworkConfig().addAddress(address(member));
        config.setProperty("hazelcast.logging.type", "jdk");
        HazelcastInstance reader = HazelcastClient.newHazelcastClient(config);
        try {
            SerializationService bytes = ((SerializationServiceSupport) reader).getSerializationService();
            List<String> lines = new ArrayList<>();
            for (DistributedObject object : reader.getDistributedObjects()) {
                if (object instanceof IMap<?, ?> map) {
                    map.entrySet().forEach(entry -> lines.add(map.getName() + ": " + entry.getKey() + " = "
                            + (entry.getValue() instanceof String text ? text : new String(
                                    bytes.toData(entry.getValue()).toByteArray(), StandardCharsets.ISO_8859_1))));
                }
            }
            return lines;
        } finally {
            reader.shutdown();
        }
    }

    public static void closeAll(List<HazelcastCounterStore> stores) {
        if (stores != null) {
            stores.forEach(HazelcastCounterStore::close);
        }
    }

    /** A clock every member of a shared test cluster reads, pointed at each test's own manual clock. */
    static final class SwitchableClock implements TimeSource {
        private volatile TimeSource target = TimeSource.system();

        void use(TimeSource newTarget) {
            this.target = newTarget;
        }

        @Override
        public long nanos() {
            return target.nanos();
        }
    }

    /**
     * {@code threadsEach} threads on each of {@code stores}, started together, try {@code key} {@code attempts} times
     * each; returns how many requests were admitted in all.
     */
    /**
     * Admissions per key when {@code threadsEach} threads on every store each make {@code attemptsPerKey} requests on
     * every one of {@code keys} keys named {@code prefix} + index, each thread in its own order, accepting any delay.
     */
    static int[] admittedPerKey(List<? extends CounterStore> stores, int threadsEach, int attemptsPerKey, String prefix,
                                int keys, Policy policy) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threadsEach * stores.size());
        try {
            CountDownLatch start = new CountDownLatch(1);
            AtomicIntegerArray admitted = new AtomicIntegerArray(keys);
            List<Future<?>> threads = new ArrayList<>();
            int seed = 0;
            for (CounterStore store : stores) {
                for (int t = 0; t < threadsEach; t++) {
                    Random order = new Random(seed++);
                    threads.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < attemptsPerKey * keys; i++) {
                            int key = order.nextInt(keys);
                            if (store.execute(prefix + key, Command.decide(policy, 1, Long.MAX_VALUE)).allowed()) {
                                admitted.incrementAndGet(key);
                            }
                        }
                        return null;
                    }));
                }
            }
            start.countDown();
            for (Future<?> thread : threads) {
                thread.get(120, TimeUnit.SECONDS);
            }
            int[] counts = new int[keys];
            for (int k = 0; k < keys; k++) {
                counts[k] = admitted.get(k);
            }
            return counts;
        } finally {
            pool.shutdownNow();
        }
    }

    static int admitted(List<? extends CounterStore> stores, int threadsEach, int attempts, String key,
                        Policy policy, long maxDelayNanos) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threadsEach * stores.size());
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> admitted = new ArrayList<>();
            for (CounterStore store : stores) {
                for (int t = 0; t < threadsEach; t++) {
                    admitted.add(pool.submit(() -> {
                        start.await();
                        int granted = 0;
                        for (int i = 0; i < attempts; i++) {
                            if (store.execute(key, Command.decide(policy, 1, maxDelayNanos)).allowed()) {
                                granted++;
                            }
                        }
                        return granted;
                    }));
                }
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> future : admitted) {
                total += future.get(120, TimeUnit.SECONDS);
            }
            return total;
        } finally {
            pool.shutdownNow();
        }
    }
}
