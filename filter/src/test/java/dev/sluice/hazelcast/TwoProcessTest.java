package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two application processes (separate JVMs) join over TCP-IP on loopback and share one limit. */
class TwoProcessTest {

    private final List<Process> processes = new ArrayList<>();

    @TempDir
    Path logs;

    @AfterEach
    void killLeftovers() {
        processes.forEach(Process::destroyForcibly);
    }

    @Test
    void apply_twoProcessesOnOneKey_admitTheLimitTogether() throws Exception {
        String clusterName = ClusterSupport.newClusterName();
        List<String> ports = List.of(String.valueOf(ClusterSupport.freePort()),
                String.valueOf(ClusterSupport.freePort()));
        for (int i = 0; i < 2; i++) {
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:TieredStopAtLevel=1",
                    "-cp", System.getProperty("java.class.path"),
                    SharedLimitNode.class.getName(),
                    clusterName, ports.get(i), "2", "40"));
            command.addAll(ports);
            processes.add(new ProcessBuilder(command)
                    .redirectError(logs.resolve("node-" + i + ".err").toFile())
                    .start());
        }
        int total = 0;
        for (int i = 0; i < processes.size(); i++) {
            Process process = processes.get(i);
            assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("node %d finished", i).isTrue();
            String err = Files.readString(logs.resolve("node-" + i + ".err"));
            assertThat(process.exitValue()).as("node %d exit; stderr:%n%s", i, err).isZero();
            total += admitted(process);
        }
        assertThat(total).isEqualTo(SharedLimitNode.POLICY.capacity());
    }

    private static int admitted(Process process) throws IOException {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            return out.lines()
                    .filter(line -> line.startsWith("admitted="))
                    .mapToInt(line -> Integer.parseInt(line.substring("admitted=".length())))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("the node printed no count"));
        }
    }
}
