package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.internal.state.Lease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three member processes (separate JVMs on loopback), eight threads each, share one hot key's limit: exactly, and
 * leased within the stated bounds.
 */
@Tag("cluster")
class HotKeyProcessesTest {

    private static final int THREADS = 8;
    private static final int ATTEMPTS = 50;

    @TempDir
    Path logs;

    @Test
    void decide_oneKeyFromEightThreadsOnEachOfThreeProcesses_admitsExactlyTheLimit() {
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

    /**
     * Leased: each process grants from slices of the one key; never more than the limit, and at most a slice and a half
     * per process fewer (the largest slice min(64, 300 / 8) = 37 permits).
     */
    @Test
    void decide_leasedHotKeyFromEightThreadsOnEachOfThreeProcesses_admitsTheLimitLessAtMostTheHeldSlices() {
        try (MemberProcesses cluster = new MemberProcesses(3, logs,
                List.of("lease", "hot=" + THREADS + "x" + ATTEMPTS))) {
            int admitted = 0;
            long slices = 0;
            for (int member = 0; member < 3; member++) {
                slices += Long.parseLong(cluster.awaitLine(member, "slices=", Duration.ofSeconds(120)));
                admitted += Integer.parseInt(cluster.awaitLine(member, "admitted=", Duration.ofSeconds(120)));
            }
            long limit = MemberProcess.LEASED_HOT_POLICY.capacity();
            long largestSlice = Math.min(StoreOptions.DEFAULT_MAX_SLICE, limit / Lease.SLICE_SHARE);
            System.out.printf("LEASED hot key: processes=3 threadsEach=%d attempts=%d limit=%d admitted=%d slices=%d%n",
                    THREADS, 3 * THREADS * ATTEMPTS, limit, admitted, slices);
            assertThat(admitted).isLessThanOrEqualTo((int) limit)
                    .isGreaterThanOrEqualTo((int) (limit - 3 * (largestSlice + largestSlice / 2)));
            assertThat(slices).isPositive();
        }
    }
}
