package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.engine.Evaluation;
import dev.sluice.engine.RuleSet;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import dev.sluice.rules.Rule;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.TestRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fallback for a cluster whose members do not all read wire version 4: two member processes, one reading up to
 * version 3 as a member of the previous release would, and a client of this release. While the old member is in the
 * cluster a request one rule rejects stays counted by the other, as before; once it leaves, it is taken back.
 */
@Tag("cluster")
class UndoWireVersionProcessesTest {

    /**
     * A token bucket of 4 per minute and a fixed window of 3 per hour (no window boundary among the requests), their
     * ids (and so their counters) the path's own.
     */
    private static RuleSet rules(String path) {
        return RuleSet.of(List.of(
                Rule.builder("bucket-" + path.substring(1)).paths(path)
                        .policy(Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(4, Duration.ofMinutes(1)))).build(),
                Rule.builder("window-" + path.substring(1)).paths(path)
                        .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofHours(1)))).build()),
                ClientAddresses.direct());
    }

    /** The bucket's remaining permits after a fourth request, which the window rejects. */
    private static long bucketAfterFourth(HazelcastCounterStore client, String path) {
        RuleSet rules = rules(path);
        for (int i = 0; i < 3; i++) {
            assertThat(rules.evaluate(TestRequest.get(path), client).allowed()).isTrue();
        }
        Evaluation fourth = rules.evaluate(TestRequest.get(path), client);
        assertThat(fourth.allowed()).isFalse();
        return fourth.outcomes().get(0).decision().remaining();
    }

    @TempDir
    Path logs;

    @Test
    void evaluate_memberOfVersion3InTheCluster_keepsTheCountUntilItLeavesThenTakesItBack() throws Exception {
        try (MemberProcesses cluster = new MemberProcesses(2, logs,
                member -> member == 0 ? List.of("wire=3") : List.of());
             HazelcastCounterStore client = HazelcastCounterStore.connectClient(
                     ClusterSupport.client(cluster.clusterName(), cluster.addresses()).build())) {
            ClusterSupport.await(() -> client.clusterWireVersion() == WireFormat.LEASES, Duration.ofSeconds(60),
                    "the client to find the oldest member reading version 3");

            assertThat(bucketAfterFourth(client, "/old")).as("counted as before").isZero();

            cluster.kill(0);
            ClusterSupport.await(() -> client.clusterWireVersion() >= WireFormat.UNDOS, Duration.ofSeconds(60),
                    "the client to find every member reading version 4 or later");

            assertThat(bucketAfterFourth(client, "/new")).as("taken back").isEqualTo(1);
        }
    }
}
