package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IndeterminateOperationStateException;
import com.hazelcast.core.MemberLeftException;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command that gives permits back runs at most once: when the owner of its key stops answering (a member process
 * frozen by {@code SIGSTOP}) and the cluster removes it, a member's give-back fails rather than being sent again to
 * the next owner, whose backup may already hold its effect; a command that only takes more is sent again. The calls
 * are made by an embedded member, since only a member's Hazelcast sends a call again. See
 * {@code docs/design/failure-handling.md}, A give-back cut short.
 */
@Tag("cluster")
class GiveBackOnceProcessTest {

    /** 10 per 300 days: nothing refills while the test runs. */
    private static final Policy TEN = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofDays(300)));
    /** Past Hazelcast's failure detection here (6 s without heartbeat, {@link ClusterSupport#TEST_PROPERTIES}). */
    private static final Duration REMOVED_WITHIN = Duration.ofSeconds(60);

    @TempDir
    Path logs;

    private MemberProcesses owner;
    private HazelcastCounterStore member;

    @AfterEach
    void stopAll() {
        if (member != null) {
            member.close();
        }
        if (owner != null) {
            owner.kill(0);
            owner.close();
        }
    }

    @Test
    void giveBacks_ownerFrozenUntilRemoved_failAndTheCountsStayWhileAChargeReachesTheNextOwner() {
        owner = new MemberProcesses(1, logs, List.of());
        int port = ClusterSupport.freePort();
        member = HazelcastCounterStore.startMember(ClusterSupport.member(owner.clusterName(), port,
                List.of(owner.port(0), port)).build());
        HazelcastInstance instance = member.instance();
        ClusterSupport.awaitClusterSize(instance, 2);
        ClusterSupport.await(() -> instance.getPartitionService().isClusterSafe(), REMOVED_WITHIN,
                "every partition backed up");
        List<String> keys = keysOwnedByTheOther(3);
        String undone = keys.get(0);
        String settledBelow = keys.get(1);
        String settledAbove = keys.get(2);

        Counted counted = countThree(undone, Command.count(TEN, 1, 0));
        Counted belowEstimate = countThree(settledBelow, Command.estimate(TEN, 1, 0));
        Counted aboveEstimate = countThree(settledAbove, Command.estimate(TEN, 1, 0));
        owner.freeze(0);
        CompletableFuture<Decision> undo = counted.giveBack().toCompletableFuture();
        CompletableFuture<Decision> giving = belowEstimate.settle(0).toCompletableFuture();
        CompletableFuture<Decision> charging = aboveEstimate.settle(3).toCompletableFuture();

        assertThat(undo).failsWithin(REMOVED_WITHIN).withThrowableThat().havingRootCause()
                .isInstanceOfAny(MemberLeftException.class, IndeterminateOperationStateException.class);
        assertThat(giving).failsWithin(REMOVED_WITHIN).withThrowableThat().havingRootCause()
                .isInstanceOfAny(MemberLeftException.class, IndeterminateOperationStateException.class);
        assertThat(charging).succeedsWithin(REMOVED_WITHIN);
        assertThat(instance.getCluster().getMembers()).hasSize(1);
        assertThat(remaining(undone)).as("three counted, the undo not made").isEqualTo(7);
        assertThat(remaining(settledBelow)).as("three counted, the settle to 0 not made").isEqualTo(7);
        assertThat(remaining(settledAbove)).as("three counted, then two more charged once").isEqualTo(5);
    }

    /** Counts {@code count} three times on {@code key}; the third's count, which the test gives back or settles. */
    private Counted countThree(String key, Command.Counting count) {
        member.execute(key, count);
        member.execute(key, count);
        Counted third = member.execute(key, count);
        assertThat(third.decision().remaining()).isEqualTo(7);
        return third;
    }

    private long remaining(String key) {
        return member.execute(key, Command.peek(TEN, 0)).remaining();
    }

    /** {@code count} keys whose partitions the member process owns. */
    private List<String> keysOwnedByTheOther(int count) {
        HazelcastInstance instance = member.instance();
        Member self = instance.getCluster().getLocalMember();
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            String key = "give-back-" + i;
            if (!self.equals(instance.getPartitionService().getPartition(member.mapKey(key)).getOwner())) {
                keys.add(key);
            }
        }
        return keys;
    }
}
