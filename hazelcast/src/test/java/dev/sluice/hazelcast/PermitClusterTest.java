package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.TimeSource;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.PermitRace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Concurrency permits across three members in this JVM (issue 26): never more than N held at once, counted by the
 * callers under 8 threads per member; and the permits of a member that stops without releasing return to the others.
 */
@Tag("cluster")
class PermitClusterTest {

    private static final int THREADS_PER_MEMBER = 8;
    private final List<HazelcastCounterStore> members = new ArrayList<>(ClusterSupport.startCluster(3,
            TimeSource.system()));

    @AfterEach
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    private static Counted acquire(HazelcastCounterStore member, String key, ConcurrencyLimit limit) {
        return member.executeAsync(key, Command.acquire(limit)).toCompletableFuture().join();
    }

    @Test
    void acquire_threeMembersEightThreadsEach_neverHoldMoreThanTheLimit() throws Exception {
        PermitRace.Outcome race = PermitRace.run(members, THREADS_PER_MEMBER, 100, "hot", ConcurrencyLimit.of(5));

        System.out.printf("PERMITS 3 members x %d threads: granted=%d, most in flight=%d of 5%n", THREADS_PER_MEMBER,
                race.granted(), race.mostInFlight());
        assertThat(race.mostInFlight()).isBetween(1, 5);
        assertThat(members.get(1).permitsHeld()).isZero();
    }

    @Test
    void memberLeaves_holdingPermits_othersGetThemBack() {
        ConcurrencyLimit two = ConcurrencyLimit.of(2, Duration.ofDays(1));
        HazelcastCounterStore leaving = members.get(2);
        assertThat(acquire(leaving, "k", two).decision().allowed()).isTrue();
        assertThat(acquire(leaving, "k", two).decision().allowed()).isTrue();
        assertThat(acquire(members.get(0), "k", two).decision().allowed()).isFalse();

        leaving.instance().getLifecycleService().terminate();
        members.remove(leaving);

        ClusterSupport.await(() -> members.get(0).permitsFreedFromGoneNodes()
                + members.get(1).permitsFreedFromGoneNodes() == 2, Duration.ofSeconds(60),
                "the permits of the member that left to be freed");
        assertThat(members.get(0).permitsHeld()).isZero();
        assertThat(members.get(0).services().health().cluster().permitsFreed()
                + members.get(1).services().health().cluster().permitsFreed()).isEqualTo(2);
        assertThat(acquire(members.get(0), "k", two).decision().allowed()).isTrue();
        assertThat(acquire(members.get(1), "k", two).decision().allowed()).isTrue();
    }

    /**
     * A caller that stops waiting cancels the answer: the call is sent, so cancelling is refused and the grant still
     * comes, for the caller to release (the failure-policy store does at its timeout; a cancellable answer dropped the
     * grant, and its permit stayed taken until its maximum hold).
     */
    @Test
    void acquire_answerCancelled_isRefusedAndTheGrantStillComesToBeReleased() {
        ConcurrencyLimit one = ConcurrencyLimit.of(1, Duration.ofDays(1));
        java.util.concurrent.CompletableFuture<Counted> answer = members.get(0).executeAsync("k", Command.acquire(one))
                .toCompletableFuture();

        assertThat(answer.cancel(false)).isFalse();
        Counted held = answer.join();
        assertThat(held.decision().allowed()).isTrue();
        held.giveBack().toCompletableFuture().join();
        assertThat(members.get(1).permitsHeld()).isZero();
    }
}
