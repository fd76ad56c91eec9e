package dev.sluice.hazelcast.internal.calls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.hazelcast.internal.wire.CallAnswer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The per-key batching, with calls the test answers itself: who is sent when, in what order, and what fails. */
class BatcherTest {

    private static final Policy POLICY = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(100, Duration.ofMinutes(1)));

    /** A call the batcher made: its key, its requests, and the future the test completes to answer it. */
    record Call(String key, List<Batcher.Request> requests, CompletableFuture<Void> done) {
        /** Answers every request with a grant whose remaining count is its cost, then completes the call. */
        void answer() {
            for (Batcher.Request request : requests) {
                request.answer().complete(grant(request.cost()));
            }
            done.complete(null);
        }
    }

    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Batcher<String> batcher = new Batcher<>((key, requests) -> {
        Call call = new Call(key, List.copyOf(requests), new CompletableFuture<>());
        calls.add(call);
        return call.done();
    }, 3, 1);

    private static Decision grant(long remaining) {
        return Decision.granted(100, "limit").remaining(remaining).nextPermitIn(0).build();
    }

    @Test
    void submit_noCallInFlight_sendsAtOnceAlone() {
        CompletableFuture<Decision> answer = batcher.submit("k", "k", POLICY, 1, 0);

        assertThat(calls).singleElement().satisfies(call -> assertThat(call.requests()).hasSize(1));
        calls.get(0).answer();
        assertThat(answer.join().remaining()).isEqualTo(1);
    }

    @Test
    void submit_whileACallIsInFlight_waitsThenGoesInOneCallInArrivalOrder() {
        batcher.submit("k", "k", POLICY, 1, 0);
        CompletableFuture<Decision> second = batcher.submit("k", "k", POLICY, 2, 0);
        CompletableFuture<Decision> third = batcher.submit("k", "k", POLICY, 3, 0);
        assertThat(calls).hasSize(1);

        calls.get(0).answer();

        awaitCalls(2);
        assertThat(calls.get(1).requests()).extracting(Batcher.Request::cost).containsExactly(2L, 3L);
        calls.get(1).answer();
        assertThat(second.join().remaining()).isEqualTo(2);
        assertThat(third.join().remaining()).isEqualTo(3);
    }

    @Test
    void submit_otherKeys_areNotHeldBack() {
        batcher.submit("a", "a", POLICY, 1, 0);
        batcher.submit("b", "b", POLICY, 1, 0);

        assertThat(calls).extracting(Call::key).containsExactly("a", "b");
    }

    @Test
    void nextBatch_moreWaitingThanTheCap_sendsTheCapThenTheRest() {
        batcher.submit("k", "k", POLICY, 1, 0);
        for (int cost = 2; cost <= 6; cost++) {
            batcher.submit("k", "k", POLICY, cost, 0);
        }

        calls.get(0).answer();
        awaitCalls(2);
        assertThat(calls.get(1).requests()).extracting(Batcher.Request::cost).containsExactly(2L, 3L, 4L);
        calls.get(1).answer();
        awaitCalls(3);
        assertThat(calls.get(2).requests()).extracting(Batcher.Request::cost).containsExactly(5L, 6L);
    }

    @Test
    void nextBatch_callerThatStoppedWaiting_isNeverSent() {
        batcher.submit("k", "k", POLICY, 1, 0);
        CompletableFuture<Decision> givenUp = batcher.submit("k", "k", POLICY, 2, 0);
        batcher.submit("k", "k", POLICY, 3, 0);
        givenUp.cancel(false);

        calls.get(0).answer();

        awaitCalls(2);
        assertThat(calls.get(1).requests()).extracting(Batcher.Request::cost).containsExactly(3L);
    }

    @Test
    void cancel_afterItsCallWasSent_isRefusedAndTheAnswerStillComes() {
        CallAnswer<Decision> sent = batcher.submit("k", "k", POLICY, 1, 0);

        assertThat(sent.cancel(false)).isFalse();
        calls.get(0).answer();
        assertThat(sent.join().remaining()).isEqualTo(1);
    }

    @Test
    void send_callFails_failsEveryRequestItCarriedOnceAndGoesOnWithTheNext() {
        batcher.submit("k", "k", POLICY, 1, 0);
        CompletableFuture<Decision> second = batcher.submit("k", "k", POLICY, 2, 0);
        CompletableFuture<Decision> third = batcher.submit("k", "k", POLICY, 3, 0);
        calls.get(0).answer();
        awaitCalls(2);
        CompletableFuture<Decision> fourth = batcher.submit("k", "k", POLICY, 4, 0);

        calls.get(1).done().completeExceptionally(new IllegalStateException("member left"));

        for (CompletableFuture<Decision> failed : List.of(second, third)) {
            assertThatThrownBy(failed::join).isInstanceOf(CompletionException.class)
                    .hasRootCauseMessage("member left");
        }
        awaitCalls(3);
        assertThat(calls.get(2).requests()).extracting(Batcher.Request::cost).containsExactly(4L);
        assertThat(calls).flatExtracting(Call::requests).extracting(Batcher.Request::cost)
                .containsExactly(1L, 2L, 3L, 4L);
        calls.get(2).answer();
        assertThat(fourth.join().remaining()).isEqualTo(4);
    }

    @Test
    void submit_senderThrows_failsTheRequestAndTheKeyStaysUsable() {
        AtomicInteger attempts = new AtomicInteger();
        Batcher<String> failingOnce = new Batcher<>((key, requests) -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("map not configured yet");
            }
            requests.forEach(request -> request.answer().complete(grant(request.cost())));
            return CompletableFuture.completedFuture(null);
        }, 3, 1);

        assertThatThrownBy(failingOnce.submit("k", "k", POLICY, 1, 0)::join)
                .hasRootCauseMessage("map not configured yet");
        assertThat(failingOnce.submit("k", "k", POLICY, 2, 0).join().remaining()).isEqualTo(2);
    }

    @Test
    void submit_twoCallsAllowed_sendsTheSecondAtOnceAndBatchesBehindBoth() {
        Batcher<String> twoInFlight = new Batcher<>((key, requests) -> {
            Call call = new Call(key, List.copyOf(requests), new CompletableFuture<>());
            calls.add(call);
            return call.done();
        }, 3, 2);
        twoInFlight.submit("k", "k", POLICY, 1, 0);
        twoInFlight.submit("k", "k", POLICY, 2, 0);
        twoInFlight.submit("k", "k", POLICY, 3, 0);
        twoInFlight.submit("k", "k", POLICY, 4, 0);
        assertThat(calls).hasSize(2);

        calls.get(1).answer();

        awaitCalls(3);
        assertThat(calls.get(2).requests()).extracting(Batcher.Request::cost).containsExactly(3L, 4L);
    }

    @ParameterizedTest(name = "at most {0} in flight")
    @ValueSource(ints = {1, 2})
    void submit_manyThreadsOnOneKey_neverMoreCallsInFlightAndEveryRequestAnsweredOnce(int maxInFlight)
            throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        AtomicInteger sent = new AtomicInteger();
        ExecutorService answering = Executors.newSingleThreadExecutor();
        Batcher<String> concurrent = new Batcher<>((key, requests) -> {
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            sent.addAndGet(requests.size());
            return CompletableFuture.runAsync(() -> {
                inFlight.decrementAndGet();
                requests.forEach(request -> request.answer().complete(grant(request.cost())));
            }, answering);
        }, 64, maxInFlight);
        int threads = 16;
        int each = 500;
        ExecutorService callers = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Long>> sums = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                sums.add(callers.submit(() -> {
                    start.await();
                    long sum = 0;
                    for (int i = 1; i <= each; i++) {
                        sum += concurrent.submit("hot", "hot", POLICY, i, 0).join().remaining();
                    }
                    return sum;
                }));
            }
            start.countDown();
            long total = 0;
            for (Future<Long> sum : sums) {
                total += sum.get(60, TimeUnit.SECONDS);
            }

            assertThat(total).isEqualTo(threads * (long) each * (each + 1) / 2);
            assertThat(sent.get()).isEqualTo(threads * each);
            assertThat(mostInFlight.get()).isBetween(1, maxInFlight);
        } finally {
            callers.shutdownNow();
            answering.shutdownNow();
        }
    }

    @Test
    void constructor_capOutsideTheWireBound_isRefused() {
        assertThatThrownBy(() -> new Batcher<>((key, requests) -> null, 0, 1))
                .hasMessageContaining("maxBatch must be from 1 to 4096, got 0");
    }

    private void awaitCalls(int count) {
        ClusterSupport.await(() -> calls.size() >= count, Duration.ofSeconds(10), count + " calls");
    }
}
