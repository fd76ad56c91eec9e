package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The test clusters' ports: never ones an outgoing connection can take before a member binds them. */
class ClusterSupportTest {

    @Test
    void freePort_manyCalls_answersDistinctPortsBelowTheEphemeralRange() throws IOException {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        int ephemeralStart = Files.isReadable(range)
                ? Integer.parseInt(Files.readString(range).trim().split("\\s+")[0]) : 49_152;
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = ClusterSupport.freePort();
            assertThat(port).isBetween(1_024, Math.max(ephemeralStart - 1, 17_407));
            ports.add(port);
        }
        assertThat(ports).hasSize(200);
    }
}
