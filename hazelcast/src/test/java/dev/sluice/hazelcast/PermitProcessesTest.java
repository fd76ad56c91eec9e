package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrency permits held by a member process that is killed (SIGKILL, no shutdown) return to the others once the
 * cluster has found the member gone: within Hazelcast's failure detection (6 s without heartbeat in these tests,
 * {@code hazelcast.max.no.heartbeat.seconds}), not at the permits' maximum hold of a day.
 */
@Tag("cluster")
class PermitProcessesTest {

    @TempDir
    Path logs;

    private MemberProcesses cluster;

    @AfterEach
    void stopAll() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void memberKilled_holdingPermits_othersGetThemBackWithinFailureDetection() {
        cluster = new MemberProcesses(3, logs, List.of());
        cluster.awaitSafe();
        assertThat(cluster.ask(2, "hold exports 3 3")).isEqualTo("3");
        assertThat(cluster.ask(0, "try exports 3")).isEqualTo("rejected");
        assertThat(cluster.ask(1, "hold exports 3 1")).isEqualTo("0");

        long killedAt = System.nanoTime();
        cluster.kill(2);

        ClusterSupport.await(() -> cluster.ask(0, "try exports 3").equals("granted"), Duration.ofSeconds(60),
                "the killed member's permits to return");
        System.out.printf("PERMITS killed member's 3 permits back after %d ms%n",
                Duration.ofNanos(System.nanoTime() - killedAt).toMillis());
        assertThat(cluster.ask(1, "hold exports 3 3")).isEqualTo("3");
        assertThat(cluster.ask(0, "try exports 3")).isEqualTo("rejected");
    }
}
