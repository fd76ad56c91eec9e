package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three member processes (separate JVMs on loopback), eight threads each, share one hot key's limit exactly. */
class HotKeyProcessesTest {

    private static final int THREADS = 8;
    private static final int ATTEMPTS = 50;

    @TempDir
    Path logs;

    @Test
    void apply_oneKeyFromEightThreadsOnEachOfThreeProcesses_admitsExactlyTheLimit() {
        try (MemberProcesses cluster = new MemberProcesses(3, logs, List.of("hot=" + THREADS + "x" + ATTEMPTS))) {
            int admitted = 0;
            for (int member = 0; member < 3; member++) {
                admitted += Integer.parseInt(cluster.awaitLine(member, "admitted=", Duration.ofSeconds(120)));
            }
            System.out.printf("FLOOD hot key: processes=3 threadsEach=%d attempts=%d limit=%d admitted=%d%n",
                    THREADS, 3 * THREADS * ATTEMPTS, MemberProcess.HOT_POLICY.capacity(), admitted);
            assertThat(admitted).isEqualTo(MemberProcess.HOT_POLICY.capacity());
        }
    }
}
