package dev.sluice.spring.boot;

import dev.sluice.hazelcast.ClusterSupport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Hazelcast member's YAML, as an application keeps it in {@code hazelcast.yaml} for Spring Boot's Hazelcast
 * auto-configuration ({@code spring.hazelcast.config}): a member on 127.0.0.1 at a free port, joining the others over
 * TCP-IP with multicast off, with the test clusters' quick-failure properties.
 */
final class HazelcastYaml {

    private HazelcastYaml() {
    }

    /** Writes the configuration of the member at {@code port} of cluster {@code clusterName} into {@code dir}. */
    static Path member(Path dir, String clusterName, int port, List<Integer> memberPorts) {
        String properties = ClusterSupport.TEST_PROPERTIES.entrySet().stream()
                .map(property -> "    " + property.getKey() + ": \"" + property.getValue() + "\"")
                .collect(Collectors.joining("\n"));
        String members = memberPorts.stream().map(member -> "          - " + ClusterSupport.LOOPBACK + ":" + member)
                .collect(Collectors.joining("\n"));
        String yaml = """
                hazelcast:
                  cluster-name: %s
                  properties:
                %s
                    hazelcast.socket.bind.any: "false"
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
                      tcp-ip:
                        enabled: true
                        member-list:
                %s
                """.formatted(clusterName, properties, port, ClusterSupport.LOOPBACK, members);
        try {
            return Files.writeString(dir.resolve("hazelcast-" + port + ".yaml"), yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
