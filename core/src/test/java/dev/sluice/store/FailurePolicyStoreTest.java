package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FailurePolicyStoreTest {

    private static final Policy POLICY = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(3, Duration.ofMinutes(1)));
    private static final Duration TIMEOUT = Duration.ofMillis(50);

    private final ManualTimeSource time = new ManualTimeSource();

    @Test
    void decide_remoteAnswers_returnsItsDecision() {
        FailurePolicyStore store = FailurePolicyStore.rejecting(new LocalCounterStore(time, 100), TIMEOUT);
        assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).remaining()).isEqualTo(2);
        assertThat(store.failures() + store.timeouts()).isZero();
    }

    @Test
    void decide_remoteNeverAnswers_allowsAfterTheTimeoutAndCountsIt() {
        FailurePolicyStore store = FailurePolicyStore.allowing(new UnresponsiveStore(), TIMEOUT);
        assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).allowed()).isTrue();
        assertThat(store.timeouts()).isEqualTo(1);
    }

    @Test
    void decide_remoteNeverAnswers_cancelsTheRemoteCallSoAQueueingStoreNeverSendsIt() {
        UnresponsiveStore remote = new UnresponsiveStore();
        FailurePolicyStore store = FailurePolicyStore.allowing(remote, TIMEOUT);

        store.execute("k", Command.decide(POLICY, 1, 0));

        assertThat(remote.cancelRequests).hasValue(1);
    }

    @Test
    void decide_remoteNeverAnswers_cancelsTheRemoteCall() {
        UnresponsiveStore remote = new UnresponsiveStore();
        FailurePolicyStore store = FailurePolicyStore.allowing(remote, TIMEOUT);

        assertThat(store.executeAsync("k", Command.decide(POLICY, 1,
                0)).toCompletableFuture().join().storeUnavailable()).isTrue();

        assertThat(remote.cancelRequests).hasValue(1);
    }

    @Test
    void peekRecordAndReserveAsync_remoteSlow_answerWithoutBlockingTheCaller() {
        UnresponsiveStore remote = new UnresponsiveStore();
        FailurePolicyStore store = FailurePolicyStore.rejecting(remote, Duration.ofMinutes(1));
        Policy stepped = Policy.of(Algorithm.STEPPED_SLIDING_WINDOW, Limit.of(3, Duration.ofMinutes(1)));
        Decision answer = new LocalCounterStore(time, 100).execute("k", Command.peek(stepped, 0));

        List<CompletableFuture<Decision>> pending = List.of(
                store.executeAsync("k", Command.peek(stepped, 0)).toCompletableFuture(),
                store.executeAsync("k", Command.record(stepped, 1, 0)).toCompletableFuture(),
                store.executeAsync("k", Command.reserve(stepped, 1, 0)).toCompletableFuture());

        assertThat(pending).noneMatch(CompletableFuture::isDone);
        remote.calls.forEach(call -> call.complete(answer));
        assertThat(pending).allMatch(call -> call.join().equals(answer));
    }

    @Test
    void decide_remoteFails_rejectsAndCountsTheFailure() {
        FailurePolicyStore store = FailurePolicyStore.rejecting(new DownStore(), TIMEOUT);
        Decision decision = store.execute("k", Command.decide(POLICY, 1, 0));
        assertThat(decision.allowed()).isFalse();
        assertThat(decision.retryAfter()).isEqualTo(FailurePolicyStore.REJECT_RETRY_AFTER);
        assertThat(store.failures()).isEqualTo(1);
    }

    @Test
    void decide_remoteDown_countsOnTheFallbackStore() {
        FailurePolicyStore store = FailurePolicyStore.fallingBackTo(new DownStore(), TIMEOUT,
                new LocalCounterStore(time, 100));
        for (int i = 0; i < 3; i++) {
            assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).allowed()).isTrue();
        }
        assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).allowed()).isFalse();
        assertThat(store.failures()).isEqualTo(4);
    }

    @Test
    void decide_remoteNeverAnswers_completesByThePolicyAfterTheTimeout() throws Exception {
        FailurePolicyStore store = FailurePolicyStore.fallingBackTo(new UnresponsiveStore(), TIMEOUT,
                new LocalCounterStore(time, 100));
        Decision decision = store.executeAsync("k", Command.decide(POLICY, 1, 0)).toCompletableFuture().get(10,
                TimeUnit.SECONDS);
        assertThat(decision.remaining()).isEqualTo(2);
        assertThat(store.timeouts()).isEqualTo(1);
    }

    @Test
    void peek_remoteNeverAnswers_reportsThePolicyOutcome() {
        FailurePolicyStore store = FailurePolicyStore.rejecting(new UnresponsiveStore(), TIMEOUT);
        assertThat(store.execute("k", Command.peek(POLICY, 1)).allowed()).isFalse();
        assertThat(store.timeouts()).isEqualTo(1);
    }

    @Test
    void decide_maxPendingCallsInFlight_decidesTheNextWithoutCallingTheRemote() {
        UnresponsiveStore remote = new UnresponsiveStore();
        FailurePolicyStore store = FailurePolicyStore.rejecting(remote, Duration.ofMillis(1)).withMaxPending(3);
        for (int i = 0; i < 3; i++) {
            store.execute("k", Command.decide(POLICY, 1, 0));
        }

        assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).allowed()).isFalse();
        assertThat(store.executeAsync("k", Command.decide(POLICY, 1,
                0)).toCompletableFuture().join().allowed()).isFalse();
        assertThat(store.execute("k", Command.peek(POLICY, 1)).allowed()).isFalse();
        assertThat(store.timeouts()).isEqualTo(3);
        assertThat(store.shed()).isEqualTo(3);
        assertThat(remote.calls).hasSize(3);
    }

    @Test
    void decide_pendingCallsAnsweredLate_callsTheRemoteAgain() {
        UnresponsiveStore remote = new UnresponsiveStore();
        FailurePolicyStore store = FailurePolicyStore.allowing(remote, Duration.ofMillis(1)).withMaxPending(2);
        store.execute("k", Command.decide(POLICY, 1, 0));
        store.execute("k", Command.decide(POLICY, 1, 0));
        remote.calls.get(0).complete(new LocalCounterStore(time, 10).execute("k", Command.decide(POLICY, 1, 0)));
        remote.calls.get(1).completeExceptionally(new IllegalStateException("late"));

        store.execute("k", Command.decide(POLICY, 1, 0));
        store.execute("k", Command.decide(POLICY, 1, 0));
        assertThat(remote.calls).hasSize(4);
        assertThat(store.shed()).isZero();
    }

    @Test
    void decide_shedCall_tellsTheListener() {
        List<String> told = new CopyOnWriteArrayList<>();
        FailurePolicyStore store = FailurePolicyStore.rejecting(new UnresponsiveStore(), Duration.ofMillis(1))
                .withMaxPending(1)
                .listeningTo((key, timedOut) -> told.add(key + (timedOut ? " timed out" : " failed")));
        store.execute("first", Command.decide(POLICY, 1, 0));
        store.execute("second", Command.decide(POLICY, 1, 0));

        assertThat(told).containsExactly("first timed out", "second failed");
        assertThat(store.shed()).isEqualTo(1);
    }

    @Test
    void decide_remoteFailsEveryCall_freesEverySlot() {
        FailurePolicyStore store = FailurePolicyStore.rejecting(new DownStore(), TIMEOUT).withMaxPending(1);
        for (int i = 0; i < 5; i++) {
            store.execute("k", Command.decide(POLICY, 1, 0));
        }
        assertThat(store.failures()).isEqualTo(5);
        assertThat(store.shed()).isZero();
    }

    /** 32 threads at once against a remote that answers nothing until released: at most 4 calls ever reach it. */
    @Test
    void decide_manyThreadsAtOnce_neverHaveMoreThanMaxPendingInFlight() throws Exception {
        UnresponsiveStore remote = new UnresponsiveStore();
        FailurePolicyStore store = FailurePolicyStore.rejecting(remote, Duration.ofMinutes(1)).withMaxPending(4);
        ExecutorService threads = Executors.newFixedThreadPool(32);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> calls = new ArrayList<>();
            for (int t = 0; t < 32; t++) {
                calls.add(threads.submit(() -> {
                    start.await();
                    return store.executeAsync("k", Command.decide(POLICY, 1, 0));
                }));
            }
            start.countDown();
            for (Future<?> call : calls) {
                call.get(30, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(remote.calls).hasSize(4);
        assertThat(store.shed()).isEqualTo(28);
    }

    @Test
    void health_remoteFoundIncompatibleMembers_keepsTheirCountBesideTheFailures() {
        FailurePolicyStore store = FailurePolicyStore.rejecting(
                new DownStore(refused(StoreHealth.Failures.NONE)), TIMEOUT);

        assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).storeUnavailable()).isTrue();

        assertThat(store.services().health()).isEqualTo(refused(new StoreHealth.Failures(1, 0, 0)));
    }

    /** The health of a remote store that found one incompatible member, with {@code failures} in the last minute. */
    private static StoreHealth refused(StoreHealth.Failures failures) {
        return new StoreHealth("cluster refused: incompatible members", 2, failures,
                new StoreHealth.Cluster(1, 0, List.of(), StoreHealth.Leasing.NONE, StoreHealth.Synchronised.NONE));
    }
}
