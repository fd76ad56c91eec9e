package dev.sluice.hazelcast.internal.sync;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.hazelcast.internal.wire.CounterCommand;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.DecisionResult;
import dev.sluice.hazelcast.internal.wire.PeekProcessor;
import dev.sluice.hazelcast.internal.wire.Shard;
import dev.sluice.hazelcast.internal.wire.ShardAnswer;
import dev.sluice.hazelcast.internal.wire.ShardCall;
import dev.sluice.hazelcast.internal.wire.SliceResult;
import dev.sluice.hazelcast.internal.wire.SyncProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * One node's synchronised keys against a real member (on a frozen manual clock) whose calls the test holds, releases
 * or fails: what is decided here and what waits, what each call carries, what a failure or a withdrawn request leaves.
 * The interval is an hour, so that only the budget and the test send calls.
 */
@Tag("cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SyncedKeysTest {

    private static final Duration NEVER = Duration.ofHours(1);
    /** A window algorithm, which leases, with a budget of 1: hot after four requests. */
    private static final Policy WINDOW_OF_HUNDRED =
            Policy.of(Algorithm.FIXED_WINDOW, Limit.of(100, Duration.ofMinutes(1))).synchronised(1);

    private final ManualTimeSource time = new ManualTimeSource();
    private final AtomicInteger maps = new AtomicInteger();
    private List<HazelcastCounterStore> member = List.of();
    private HeldOwners owners;
    private SyncedKeys node;

    @BeforeAll
    void startMember() {
        member = ClusterSupport.startCluster(1, time);
    }

    @AfterAll
    void stopMember() {
        ClusterSupport.closeAll(member);
    }

    private SyncedKeys node(OptionalLong storeBudget, int maxKeys) {
        owners = new HeldOwners(member.get(0).instance().getMap("synced-test-" + maps.incrementAndGet()));
        node = new SyncedKeys(owners, time, NEVER, storeBudget, maxKeys, () -> 3);
        return node;
    }

    @AfterEach
    void stop() {
        if (node != null) {
            node.stop();
        }
    }

    private static Policy hundred(long budget) {
        return Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(100, Duration.ofMinutes(1))).synchronised(budget);
    }

    @Test
    void decide_belowHalfItsBudget_decidesHereAndSendsNothingUntilFlushed() {
        node(OptionalLong.empty(), 100);
        Policy policy = hundred(10);

        for (int i = 0; i < 4; i++) {
            CompletableFuture<Decision> decided = node.decide("k", policy, 1, 0);
            assertThat(decided).isDone();
            assertThat(decided.join().remaining()).isEqualTo(99 - i);
        }
        assertThat(owners.calls).isEmpty();
        assertThat(node.hitsWaiting()).isEqualTo(4);

        node.flush();

        assertThat(owners.calls).hasSize(1);
        assertThat(owners.calls.get(0).hitPermits()).isEqualTo(4);
        assertThat(owners.remaining("k", policy)).isEqualTo(96);
        assertThat(node.hitsWaiting()).isZero();
    }

    @Test
    void decide_halfItsBudgetUsed_sendsTheHitsAtOnce() {
        node(OptionalLong.empty(), 100);
        Policy policy = hundred(10);

        for (int i = 0; i < 5; i++) {
            assertThat(node.decide("k", policy, 1, 0)).isDone();
        }

        ClusterSupport.await(() -> owners.calls.size() == 1 && node.hitsWaiting() == 0, Duration.ofSeconds(30),
                "the hits sent without a flush");
        assertThat(owners.remaining("k", policy)).isEqualTo(95);
    }

    @Test
    void decide_pastItsBudget_waitsForTheOwnerWhichCountsThisNodesHitsFirst() {
        node(OptionalLong.empty(), 100);
        Policy three = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofMinutes(1))).synchronised(2);
        owners.hold = true;

        assertThat(node.decide("k", three, 1, 0).join().allowed()).isTrue();
        ClusterSupport.await(() -> owners.held.size() == 1, Duration.ofSeconds(30), "the first hit sent");
        assertThat(node.decide("k", three, 1, 0).join().allowed()).as("the budget holds two").isTrue();
        CompletableFuture<Decision> third = node.decide("k", three, 1, 0);
        assertThat(third).as("past the budget: waits").isNotDone();

        owners.releaseOne();
        assertThat(third.join().allowed()).as("decided here once the owner counted the first").isTrue();
        ClusterSupport.await(() -> owners.held.size() == 1, Duration.ofSeconds(30), "the two hits sent at once");
        CompletableFuture<Decision> fourth = node.decide("k", three, 1, 0);
        assertThat(fourth).as("the view holds the three admitted: rejected here").isDone();
        assertThat(fourth.join().allowed()).isFalse();
        assertThat(owners.calls.get(1).hitPermits()).isEqualTo(2);
        owners.releaseOne();

        node.flush();
        assertThat(owners.calls).hasSize(2);
        assertThat(owners.remaining("k", three)).isZero();
    }

    @Test
    void call_failed_failsTheRequestsWaitingAndSendsItsHitsAgain() {
        node(OptionalLong.empty(), 100);
        Policy policy = hundred(1);
        owners.hold = true;
        assertThat(node.decide("k", policy, 1, 0).join().allowed()).isTrue();
        ClusterSupport.await(() -> owners.held.size() == 1, Duration.ofSeconds(30), "the hit sent");
        CompletableFuture<Decision> waiting = node.decide("k", policy, 1, 0);

        owners.failOne(new IllegalStateException("owner gone"));

        assertThat(waiting).isCompletedExceptionally();
        assertThat(node.messagesFailed()).isEqualTo(1);
        assertThat(node.hitsWaiting()).as("the hit waits again").isEqualTo(1);
        owners.hold = false;
        node.flush();
        assertThat(owners.remaining("k", policy)).as("the hit counted once, the failed request never").isEqualTo(99);
    }

    @Test
    void cancel_requestWaitingToBeSent_isWithdrawnAndNeverCounted() {
        node(OptionalLong.empty(), 100);
        Policy policy = hundred(0);
        owners.hold = true;
        CompletableFuture<Decision> first = node.decide("k", policy, 1, 0);
        ClusterSupport.await(() -> owners.held.size() == 1, Duration.ofSeconds(30), "the first request sent");
        CompletableFuture<Decision> second = node.decide("k", policy, 1, 0);

        assertThat(first.cancel(false)).as("sent: may count").isFalse();
        assertThat(second.cancel(false)).as("not sent yet").isTrue();
        owners.hold = false;
        owners.releaseOne();
        node.flush();

        assertThat(first.join().allowed()).isTrue();
        assertThat(owners.calls).hasSize(1);
        assertThat(owners.remaining("k", policy)).isEqualTo(99);
    }

    @Test
    void decide_keysBeyondMaxKeys_areDecidedOnTheOwnerEachAlone() {
        node(OptionalLong.empty(), 1);
        Policy policy = hundred(10);
        node.decide("viewed", policy, 1, 0).join();

        assertThat(node.decide("beyond", policy, 1, 0).join().remaining()).isEqualTo(99);
        assertThat(node.decide("beyond", policy, 1, 0).join().remaining()).isEqualTo(98);

        assertThat(node.keys()).isEqualTo(1);
        assertThat(owners.calls).hasSize(2).allSatisfy(call -> assertThat(call.cost()).isEqualTo(1));
    }

    @Test
    void record_pastRequest_isAHitCountedByTheOwnerOnTheFlush() {
        node(OptionalLong.empty(), 100);
        Policy policy = hundred(10);

        node.record("k", policy, 3, 0).join();

        assertThat(node.peek("k", policy, 0).orElseThrow().remaining()).isEqualTo(97);
        assertThat(owners.calls).isEmpty();
        node.flush();
        assertThat(owners.remaining("k", policy)).isEqualTo(97);
    }

    @Test
    void budgetOf_policiesWithAndWithoutTheirOwn_isTheirsElseTheStoresElseOnePercentOverTheOtherNodes() {
        SyncedKeys automatic = node(OptionalLong.empty(), 100);
        Policy thousand = Policy.of(Algorithm.GCRA, Limit.of(1_000, Duration.ofMinutes(1)),
                Limit.of(50_000, Duration.ofDays(1)));

        // three nodes: 1,000 / 100 / 2 others
        assertThat(automatic.budgetOf(thousand.synchronised())).isEqualTo(5);
        assertThat(automatic.budgetOf(Policy.of(Algorithm.GCRA, Limit.of(199, Duration.ofMinutes(1)))
                .synchronised())).as("below 100 per other node: exact").isZero();
        assertThat(automatic.budgetOf(thousand.synchronised(2))).isEqualTo(2);
        automatic.stop();
        SyncedKeys given = node(OptionalLong.of(7), 100);
        assertThat(given.budgetOf(thousand.synchronised())).isEqualTo(7);
        assertThat(given.budgetOf(thousand.synchronised(2))).isEqualTo(2);
    }

    @Test
    void forgetIdle_viewsBackToFullCapacity_areForgottenAndOthersKept() {
        node(OptionalLong.empty(), 100);
        Policy policy = hundred(10);
        node.decide("a", policy, 1, 0).join();
        time.advance(Duration.ofMillis(300));
        node.decide("b", policy, 1, 0).join();
        node.flush();

        time.advance(Duration.ofMillis(400)); // a refilled (one token per 600 ms), b not yet
        node.forgetIdle();

        assertThat(node.keys()).isEqualTo(1);
        assertThat(node.peek("b", policy, 0)).isPresent();
        assertThat(node.peek("a", policy, 0)).isEmpty();
    }

    /**
     * The view's call in flight is counted by the owner before a slice this node takes, and answered after the key
     * cooled: the answer lacks the slice, so the view admits nothing alone until an answer counts it, and the owner
     * counts every admission (the slice's permits as admitted).
     */
    @Test
    void decide_answerCountedBeforeASliceThisNodeTook_admitsNothingAloneUntilAnAnswerCountsTheSlice() {
        node(OptionalLong.empty(), 100);
        Policy ten = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(10, Duration.ofMinutes(1))).synchronised(1);
        List<CompletableFuture<Decision>> decisions = hot("k", ten);
        owners.releaseOne(); // the hit; the first waiting request rides the next call, alone
        ClusterSupport.await(() -> owners.held.size() == 1, Duration.ofSeconds(30), "the first request sent");
        SliceVisit visit = node.enterSlices("k", ten).orElseThrow();
        Runnable staleAnswer = owners.countOne();
        CompletableFuture<SliceResult> slice = node.takeSlice("k", ten,
                CounterCommand.takeSlice(ten, 0, 8, Duration.ofMinutes(1).toNanos()));
        owners.releaseOne();
        long granted = slice.join().permits(); // every permit of the slice, as if granted here
        visit.left(true);

        staleAnswer.run();
        assertThat(decisions.get(1).join().allowed()).as("decided on the owner").isTrue();
        assertThat(decisions.get(2)).as("the answer lacks the slice: waits for the owner").isNotDone();
        owners.hold = false;
        owners.releaseAll();
        node.flush();

        long admitted = granted + decisions.stream().filter(decision -> decision.join().allowed()).count();
        assertThat(admitted).isLessThanOrEqualTo(10);
        assertThat(owners.remaining("k", ten)).as("every admission counted").isEqualTo(10 - admitted);
    }

    /** Two requests in the slices, one of which found the key cooled: the view admits alone only once both left. */
    @Test
    void decide_whileARequestIsInTheSlices_waitsForTheOwnerEvenAfterAnAnswer() {
        node(OptionalLong.empty(), 100);
        Policy hundred = WINDOW_OF_HUNDRED;
        hotAndCounted("k", hundred);
        SliceVisit cooled = node.enterSlices("k", hundred).orElseThrow();
        SliceVisit granted = node.enterSlices("k", hundred).orElseThrow();
        cooled.left(true);
        cooled.left(true); // once only

        CompletableFuture<Decision> first = node.decide("k", hundred, 1, 0);
        assertThat(first.join().allowed()).isTrue();
        long localBefore = node.localDecisions();
        CompletableFuture<Decision> second = node.decide("k", hundred, 1, 0);
        assertThat(second.join().allowed()).isTrue();
        assertThat(node.localDecisions()).as("decided on the owner, after an answer").isEqualTo(localBefore);

        granted.left(false);
        CompletableFuture<Decision> third = node.decide("k", hundred, 1, 0);
        assertThat(third).as("both left: decided here").isDone();
        assertThat(node.localDecisions()).isEqualTo(localBefore + 1);
    }

    /**
     * A request of a hot key rides a call to the owner with no hit (its budget is 0 there), and the key cools
     * meanwhile: until that call answers, the view lacks the request's count, so the next request waits for the owner
     * too. Deciding it here would take the permit the owner gives the first: six admitted of five.
     */
    @Test
    void decide_whileARequestRidesACallToTheOwner_waitsForTheAnswer() {
        node(OptionalLong.empty(), 100);
        Policy five = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(5, Duration.ofMinutes(1))).synchronised(1);
        hotAndCounted("k", five);
        owners.hold = true;
        CompletableFuture<Decision> riding = node.decide("k", five, 1, 0);
        ClusterSupport.await(() -> owners.held.size() == 1, Duration.ofSeconds(30), "the request sent");
        node.enterSlices("k", five).orElseThrow().left(true);

        CompletableFuture<Decision> next = node.decide("k", five, 1, 0);
        assertThat(next).as("the view lacks the riding request: waits").isNotDone();
        owners.hold = false;
        owners.releaseAll();
        assertThat(riding.join().allowed()).as("the last permit, given on the owner").isTrue();
        assertThat(next.join().allowed()).as("none left").isFalse();
        assertThat(owners.remaining("k", five)).isZero();
    }

    /** A key reset while a request is in its slices: the request leaves the view it entered, not the new one. */
    @Test
    void leftSlices_afterTheKeyWasResetAndItsViewMadeAgain_leavesTheNewViewAlone() {
        node(OptionalLong.empty(), 100);
        Policy hundred = WINDOW_OF_HUNDRED;
        hotAndCounted("k", hundred);
        SliceVisit visit = node.enterSlices("k", hundred).orElseThrow();

        node.forget("k").join();
        assertThat(node.decide("k", hundred, 1, 0)).as("a new view, alone").isDone();
        node.flush();
        visit.left(false);

        long localBefore = node.localDecisions();
        assertThat(node.decide("k", hundred, 1, 0)).as("still alone").isDone();
        assertThat(node.localDecisions()).isEqualTo(localBefore + 1);
    }

    /**
     * Makes {@code key} hot on this node, with calls held: one hit of a budget of 1 sent, then three requests past the
     * budget, waiting.
     */
    private List<CompletableFuture<Decision>> hot(String key, Policy policy) {
        owners.hold = true;
        List<CompletableFuture<Decision>> decisions = new ArrayList<>();
        decisions.add(node.decide(key, policy, 1, 0));
        ClusterSupport.await(() -> owners.held.size() == 1, Duration.ofSeconds(30), "the hit sent");
        for (int i = 0; i < View.HOT_EXHAUSTIONS; i++) {
            decisions.add(node.decide(key, policy, 1, 0));
        }
        return decisions;
    }

    /** Makes {@code key} hot, then lets every call through: its requests all admitted and counted by the owner. */
    private void hotAndCounted(String key, Policy policy) {
        List<CompletableFuture<Decision>> decisions = hot(key, policy);
        owners.hold = false;
        owners.releaseOne();
        decisions.forEach(decision -> assertThat(decision.join().allowed()).isTrue());
        node.flush();
    }

    /** Owners on a real member's map, whose calls the test may hold, then release or fail one by one. */
    private final class HeldOwners implements Owners {
        final List<SyncProcessor> calls = Collections.synchronizedList(new ArrayList<>());
        final List<Held> held = Collections.synchronizedList(new ArrayList<>());
        private final IMap<String, Shard> shards;
        volatile boolean hold;

        HeldOwners(IMap<String, Shard> shards) {
            this.shards = shards;
        }

        @Override
        public CompletableFuture<ShardAnswer> call(int shard, List<String> keys,
                                                   List<? extends EntryProcessor<String, CounterState, ?>> processors) {
            processors.stream().filter(SyncProcessor.class::isInstance)
                    .forEach(processor -> calls.add((SyncProcessor) processor));
            Held call = new Held(() -> shards.submitToKey(ShardCall.shardKey(shard), new ShardCall(keys, processors))
                    .toCompletableFuture(), new CompletableFuture<>());
            if (hold) {
                held.add(call);
            } else {
                call.release();
            }
            return call.answer;
        }

        void releaseOne() {
            held.remove(0).release();
        }

        void releaseAll() {
            while (!held.isEmpty()) {
                releaseOne();
            }
        }

        /** Runs the first call held on the member now, and answers it when the task returned is run. */
        Runnable countOne() {
            Held call = held.remove(0);
            ShardAnswer counted = call.send.get().join();
            return () -> call.answer.complete(counted);
        }

        void failOne(Throwable cause) {
            held.remove(0).answer.completeExceptionally(cause);
        }

        /** What the key's owner says remains, asked with no view. */
        long remaining(String key, Policy policy) {
            try {
                return shards.submitToKey(ShardCall.shardKey(ShardCall.shardOf(key)),
                        new ShardCall(List.of(key), List.of(new PeekProcessor(policy, 0))))
                        .toCompletableFuture().join().result(0, DecisionResult.class).decision().remaining();
            } catch (CompletionException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** A call to the member, sent when released, and its answer. */
    private record Held(Supplier<CompletableFuture<ShardAnswer>> send, CompletableFuture<ShardAnswer> answer) {

        void release() {
            send.get().whenComplete((result, failure) -> {
                if (failure == null) {
                    answer.complete(result);
                } else {
                    answer.completeExceptionally(failure);
                }
            });
        }
    }
}
