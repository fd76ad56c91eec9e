package dev.sluice.hazelcast;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Plain Hazelcast members in processes of their own: a JVM whose class path holds the Hazelcast jar and nothing of
 * Sluice, started by Hazelcast's own {@code HazelcastMemberStarter}, on 127.0.0.1 with TCP-IP join and the test-speed
 * properties of {@link ClusterSupport#TEST_PROPERTIES} (so that it can join a test cluster). Stateless.
 */
final class PlainMembers {

    private PlainMembers() {
    }

    /** This JVM's class path reduced to the Hazelcast jar: no Sluice module, classes or test classes. */
    static List<String> hazelcastJarOnly() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> Path.of(entry).getFileName().toString().matches("hazelcast-\\d[\\w.-]*\\.jar"))
                .toList();
    }

    /**
     * Starts a plain member of {@code clusterName} on {@code port}, joining {@code joinPorts}, with {@code classPath};
     * its configuration and log go to {@code dir}, named after the port.
     */
    static Process start(Path dir, String clusterName, int port, List<Integer> joinPorts, List<String> classPath)
            throws IOException {
        List<String> lines = new ArrayList<>(List.of(
                "hazelcast:",
                "  cluster-name: " + clusterName,
                "  properties:",
                "    hazelcast.socket.bind.any: false"));
        ClusterSupport.TEST_PROPERTIES.forEach((name, value) -> lines.add("    " + name + ": " + value));
        lines.addAll(List.of(
                "  network:",
                "    port:",
                "      port: " + port,
                "      auto-increment: false",
                "    interfaces:",
                "      enabled: true",
                "      interfaces: [" + ClusterSupport.LOOPBACK + "]",
                "    join:",
                "      multicast:",
                "        enabled: false",
                "      auto-detection:",
                "        enabled: false",
                "      tcp-ip:",
                "        enabled: true",
                "        member-list: [" + String.join(", ", joinPorts.stream()
                        .map(joinPort -> ClusterSupport.LOOPBACK + ":" + joinPort).toList()) + "]",
                ""));
        Path config = Files.writeString(dir.resolve("hazelcast-" + port + ".yaml"), String.join("\n", lines));
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Dhazelcast.config=" + config,
                "-cp", String.join(File.pathSeparator, classPath),
                "com.hazelcast.core.server.HazelcastMemberStarter")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("member-" + port + ".log").toFile())
                .start();
    }

    /** Ends {@code member}: asks it to stop, then kills it if it has not within 30 s. */
    static void stop(Process member) throws InterruptedException {
        member.destroy();
        if (!member.waitFor(30, TimeUnit.SECONDS)) {
            member.destroyForcibly();
        }
    }
}
