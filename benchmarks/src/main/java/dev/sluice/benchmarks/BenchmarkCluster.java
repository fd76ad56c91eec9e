package dev.sluice.benchmarks;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.hazelcast.MemberOptions;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A two-member Hazelcast cluster on 127.0.0.1 for the benchmarks: both members in this JVM, or the second in a
 * process of its own ({@link #main}). Members know Bucket4j's serializers, so both libraries run on the same cluster
 * without Java serialization; Sluice's register themselves.
 */
final class BenchmarkCluster implements AutoCloseable {

    /** The map of {@link IncrementProcessor}, the floor a distributed decision is measured against. */
    static final String FLOOR_MAP = "floor";

    private final HazelcastInstance local;
    private final @Nullable HazelcastInstance secondInJvm;
    private final @Nullable Process secondProcess;

    private BenchmarkCluster(HazelcastInstance local, @Nullable HazelcastInstance secondInJvm,
                             @Nullable Process secondProcess) {
        this.local = local;
        this.secondInJvm = secondInJvm;
        this.secondProcess = secondProcess;
    }

    /** Starts two members, the second in another JVM when {@code separateProcess}, and waits until they joined. */
    static BenchmarkCluster start(boolean separateProcess) throws Exception {
        String name = "sluice-bench-" + UUID.randomUUID();
        int firstPort = freePort();
        int secondPort = freePort();
        List<Integer> ports = List.of(firstPort, secondPort);
        HazelcastInstance local = Hazelcast.newHazelcastInstance(config(name, firstPort, ports));
        HazelcastInstance secondInJvm = null;
        Process secondProcess = null;
        if (separateProcess) {
            secondProcess = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                    "-cp", System.getProperty("java.class.path"), BenchmarkCluster.class.getName(),
                    name, Integer.toString(secondPort), Integer.toString(firstPort))
                    .inheritIO().start();
        } else {
            secondInJvm = Hazelcast.newHazelcastInstance(config(name, secondPort, ports));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (local.getCluster().getMembers().size() < 2) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the second member did not join within 120 s");
            }
            Thread.sleep(100);
        }
        return new BenchmarkCluster(local, secondInJvm, secondProcess);
    }

    /** A cluster of one member, in this JVM. */
    static BenchmarkCluster startOne() {
        int port = freePort();
        return new BenchmarkCluster(Hazelcast.newHazelcastInstance(
                config("sluice-bench-" + UUID.randomUUID(), port, List.of(port))), null, null);
    }

    /** The member in this JVM that the benchmark calls through. */
    HazelcastInstance local() {
        return local;
    }

    /** The members in this JVM: the local one, and the second unless it runs in a process of its own. */
    List<HazelcastInstance> inThisJvm() {
        return secondInJvm == null ? List.of(local) : List.of(local, secondInJvm);
    }

    static Config config(String clusterName, int port, List<Integer> ports) {
        Config config = new Config().setClusterName(clusterName);
        config.setProperty("hazelcast.logging.type", "none");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.max.wait.seconds.before.join", "1");
        NetworkConfig network = config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(ports.stream().map(p -> "127.0.0.1:" + p).toList());
        HazelcastProxyManager.addCustomSerializers(config.getSerializationConfig(), 10_000);
        // The floor's map stores objects, as Sluice's does, so neither deserializes a value per call.
        config.addMapConfig(new MapConfig(FLOOR_MAP).setInMemoryFormat(InMemoryFormat.OBJECT).setBackupCount(1));
        return config;
    }

    /**
     * Waits up to 60 s, trying every 50 ms, until {@code ready} answers true without throwing: for a store that sends
     * the members a newer wire format only once it has heard that every member reads it, which it asks as it starts.
     */
    static void await(String what, Callable<Boolean> ready) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            Exception failure = null;
            try {
                if (ready.call()) {
                    return;
                }
            } catch (Exception notYet) {
                failure = notYet;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " did not happen within 60 s", failure);
            }
            Thread.sleep(50);
        }
    }

    /** Whether {@code store} names its reservations, so settles them by id: once the members read wire version 8. */
    static boolean settlesById(HazelcastCounterStore store) {
        Policy probe = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(1_000, Duration.ofMinutes(1))).inUnit("tokens");
        Counted reserved = store.executeAsync("benchmark-probe", Command.estimate(probe, 1,
                0)).toCompletableFuture().join();
        reserved.giveBack().toCompletableFuture().join();
        return reserved.reservation().isPresent();
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws Exception {
        local.shutdown();
        if (secondInJvm != null) {
            secondInJvm.shutdown();
        }
        if (secondProcess != null) {
            secondProcess.destroy();
            secondProcess.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** The second member in its own process: {@code clusterName port joinPort}; runs until killed. */
    public static void main(String[] args) throws InterruptedException {
        int port = Integer.parseInt(args[1]);
        // Sluice's maps configured as on any member of a Sluice cluster (docs/hazelcast-member.yaml): a member that
        // embeds the store configures them on itself only, so without this this member kept their values serialized
        // and read and wrote each synchronised shard whole on every call it backed up.
        Hazelcast.newHazelcastInstance(MemberOptions.builder()
                .config(config(args[0], port, List.of(Integer.parseInt(args[2]), port))).build().toConfig());
        Thread.currentThread().join();
    }
}
