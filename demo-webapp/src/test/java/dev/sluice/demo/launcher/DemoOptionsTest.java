package dev.sluice.demo.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class DemoOptionsTest {

    @Test
    void parse_noArguments_defaultsJoinTheSecondInstance() {
        DemoOptions options = DemoOptions.parse(List.of());

        assertThat(options.port()).isEqualTo(8080);
        assertThat(options.hazelcastPort()).isEqualTo(5701);
        assertThat(options.members()).containsExactly("127.0.0.1:5701", "127.0.0.1:5702");
        assertThat(options.clusterName()).isEqualTo("sluice-demo");
        assertThat(options.webapp()).isNull();
        assertThat(options.help()).isFalse();
    }

    @Test
    void parse_secondInstance_otherPortsSameMembers() {
        DemoOptions options = DemoOptions.parse(List.of("--port", "8081", "--hazelcast-port", "5702"));

        assertThat(options.port()).isEqualTo(8081);
        assertThat(options.hazelcastPort()).isEqualTo(5702);
        assertThat(options.members()).isEqualTo(DemoOptions.defaults().members());
    }

    @Test
    void parse_membersAndClusterName() {
        DemoOptions options = DemoOptions.parse(List.of("--members", " 127.0.0.1:6001, 127.0.0.1:6002 ,",
                "--cluster-name", "mine"));

        assertThat(options.members()).containsExactly("127.0.0.1:6001", "127.0.0.1:6002");
        assertThat(options.clusterName()).isEqualTo("mine");
    }

    @Test
    void parse_mistakes_nameTheOption() {
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--port", "http")))
                .hasMessage("--port: expected a port from 0 to 65535, got http");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--hazelcast-port", "0")))
                .hasMessage("--hazelcast-port: expected a port from 1 to 65535, got 0");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--port"))).hasMessage("--port: missing value");
        assertThatThrownBy(() -> DemoOptions.parse(List.of("--verbose", "yes")))
                .hasMessage("unknown option --verbose");
        assertThat(DemoOptions.parse(List.of("--help")).help()).isTrue();
    }
}
