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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What every {@link CounterStore} must do, whatever holds its counters. A store's test extends this class and says
 * how to build the store on a manual clock; the same assertions then run against the local map and against a
 * Hazelcast cluster.
 */
public abstract class CounterStoreContract {

    protected static final Limit TEN_PER_MINUTE = Limit.of(10, Duration.ofMinutes(1));
    protected static final Policy TOKEN_BUCKET = Policy.of(Algorithm.TOKEN_BUCKET, TEN_PER_MINUTE);
    /** Steps of 100 ms; the manual clock starts on a whole second, so step boundaries fall on whole seconds. */
    protected static final Policy STEPPED = Policy.of(Algorithm.STEPPED_SLIDING_WINDOW, TEN_PER_MINUTE);
    private static final long SECOND = 1_000_000_000L;

    protected ManualTimeSource time;
    protected CounterStore store;

    /** A new, empty store whose decisions read {@code time}. */
    protected abstract CounterStore newStore(ManualTimeSource time);

    /** How many keys the store holds right now, expired or not. */
    protected abstract long storedKeys(CounterStore store);

    /** Threads per racing test; a cluster store may spread them over members. */
    protected int racingThreads() {
        return 8;
    }

    @BeforeEach
    void createStore() {
        time = new ManualTimeSource();
        store = newStore(time);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void decide_freshKey_grantsAndCountsDown() {
        for (long expected = 9; expected >= 0; expected--) {
            Decision decision = store.execute("k", Command.decide(TOKEN_BUCKET, 1, 0));
            assertThat(decision.allowed()).isTrue();
            assertThat(decision.remaining()).isEqualTo(expected);
            assertThat(decision.limit()).isEqualTo(10);
            assertThat(decision.limitName()).isEqualTo("10/1m");
        }
    }

    @Test
    void decide_limitExhausted_rejectsWithRetryAfterUntilRefill() {
        drain("k", TOKEN_BUCKET, 10);

        Decision rejected = store.execute("k", Command.decide(TOKEN_BUCKET, 1, 0));
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.remaining()).isZero();
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(6));
        assertThat(rejected.resetAfter()).isEqualTo(Duration.ofMinutes(1));

        time.advanceNanos(rejected.retryAfterNanos() - 1);
        assertThat(store.execute("k", Command.decide(TOKEN_BUCKET, 1, 0)).allowed()).isFalse();
        time.advanceNanos(1);
        assertThat(store.execute("k", Command.decide(TOKEN_BUCKET, 1, 0)).allowed()).isTrue();
    }

    @Test
    void decide_distinctKeys_countSeparately() {
        drain("a", TOKEN_BUCKET, 10);
        assertThat(store.execute("a", Command.decide(TOKEN_BUCKET, 1, 0)).allowed()).isFalse();
        assertThat(store.execute("b", Command.decide(TOKEN_BUCKET, 1, 0)).remaining()).isEqualTo(9);
    }

    @Test
    void peek_anyCost_countsNothing() {
        store.execute("k", Command.decide(TOKEN_BUCKET, 4, 0));
        assertThat(store.execute("k", Command.peek(TOKEN_BUCKET, 0)).remaining()).isEqualTo(6);
        assertThat(store.execute("k", Command.peek(TOKEN_BUCKET, 6)).allowed()).isTrue();
        assertThat(store.execute("k", Command.peek(TOKEN_BUCKET, 7)).allowed()).isFalse();
        assertThat(store.execute("k", Command.decide(TOKEN_BUCKET, 1, 0)).remaining()).isEqualTo(5);
        assertThat(store.execute("never-seen", Command.peek(TOKEN_BUCKET, 0)).remaining()).isEqualTo(10);
    }

    @Test
    void decide_costAboveCapacity_rejectsForeverWithoutConsuming() {
        Decision decision = store.execute("k", Command.decide(TOKEN_BUCKET, 11, 0));
        assertThat(decision.allowed()).isFalse();
        assertThat(decision.canSucceed()).isFalse();
        assertThat(store.execute("k", Command.decide(TOKEN_BUCKET, 10, 0)).allowed()).isTrue();
    }

    @Test
    void decide_multiLimitPolicy_isRejectedByTheExhaustedLimit() {
        Limit perSecond = Limit.of(3, Duration.ofSeconds(1)).named("burst");
        Limit perHour = Limit.of(5, Duration.ofHours(1)).named("hourly");
        Policy policy = Policy.of(Algorithm.FIXED_WINDOW, perSecond, perHour);

        drain("k", policy, 3);
        assertThat(store.execute("k", Command.decide(policy, 1, 0)).limitName()).isEqualTo("burst");

        time.advance(Duration.ofSeconds(1));
        drain("k", policy, 2);
        Decision hourly = store.execute("k", Command.decide(policy, 1, 0));
        assertThat(hourly.allowed()).isFalse();
        assertThat(hourly.limitName()).isEqualTo("hourly");
    }

    @Test
    void decide_rejectedByOneLimit_doesNotChargeTheOthers() {
        Limit perMinute = Limit.of(2, Duration.ofMinutes(1)).named("minute");
        Limit perHour = Limit.of(4, Duration.ofHours(1)).named("hour");
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, perMinute, perHour);

        drain("k", policy, 2);
        for (int i = 0; i < 3; i++) {
            assertThat(store.execute("k", Command.decide(policy, 1, 0)).limitName()).isEqualTo("minute");
        }
        time.advance(Duration.ofMinutes(1));
        // Had the three rejections been charged to the hourly limit, it would have no permits left for these two.
        drain("k", policy, 2);
        assertThat(store.execute("k", Command.decide(policy, 1, 0)).limitName()).isEqualTo("hour");
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void decide_manyThreadsOnOneKey_admitExactlyTheCapacity(Algorithm algorithm) throws Exception {
        Policy policy = Policy.of(algorithm, TEN_PER_MINUTE);
        int threads = racingThreads();
        int attemptsPerThread = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> admitted = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                admitted.add(pool.submit(() -> {
                    start.await();
                    int granted = 0;
                    for (int i = 0; i < attemptsPerThread; i++) {
                        if (store.execute("hot", Command.decide(policy, 1, Long.MAX_VALUE)).allowed()) {
                            granted++;
                        }
                    }
                    return granted;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> future : admitted) {
                total += future.get(60, TimeUnit.SECONDS);
            }
            assertThat(total).as("admitted by %d threads x %d attempts", threads, attemptsPerThread).isEqualTo(10);
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void decide_clockJumpsBack_grantsNothingExtra(Algorithm algorithm) {
        Policy policy = Policy.of(algorithm, TEN_PER_MINUTE);
        time.advance(Duration.ofSeconds(30));
        drain("k", policy, 10);

        time.advance(Duration.ofSeconds(-45));
        assertThat(store.execute("k", Command.decide(policy, 1, Long.MAX_VALUE)).allowed()).isFalse();
        time.advance(Duration.ofSeconds(-600));
        assertThat(store.execute("k", Command.decide(policy, 1, Long.MAX_VALUE)).allowed()).isFalse();
    }

    @Test
    void decide_keyBackToFullCapacity_isForgotten() {
        for (int i = 0; i < 50; i++) {
            store.execute("key-" + i, Command.decide(TOKEN_BUCKET, 1, 0));
        }
        assertThat(storedKeys(store)).isEqualTo(50);
        time.advance(Duration.ofSeconds(7));
        awaitExpiry();
        assertThat(storedKeys(store)).isZero();
        assertThat(store.execute("key-0", Command.decide(TOKEN_BUCKET, 1, 0)).remaining()).isEqualTo(9);
    }

    @Test
    void applyAsync_completesWithTheDecision() throws Exception {
        drain("k", TOKEN_BUCKET, 9);
        Decision last = store.executeAsync("k", Command.decide(TOKEN_BUCKET, 1, 0)).toCompletableFuture().get(30,
                TimeUnit.SECONDS);
        assertThat(last.allowed()).isTrue();
        assertThat(last.remaining()).isZero();
        Decision rejected = store.executeAsync("k", Command.decide(TOKEN_BUCKET, 1, 0)).toCompletableFuture().get(30,
                TimeUnit.SECONDS);
        assertThat(rejected.allowed()).isFalse();
    }

    @Test
    void peekAsync_completesWithThePeekAndCountsNothing() throws Exception {
        drain("k", TOKEN_BUCKET, 3);
        Decision peeked = store.executeAsync("k", Command.peek(TOKEN_BUCKET, 0)).toCompletableFuture().get(30,
                TimeUnit.SECONDS);
        assertThat(peeked.remaining()).isEqualTo(7);
        assertThat(store.execute("k", Command.peek(TOKEN_BUCKET, 0)).remaining()).isEqualTo(7);
    }

    @Test
    void record_pastRequest_countsInTheStepItWasMadeIn() {
        Decision next = store.execute("k", Command.record(STEPPED, 3, 45 * SECOND));

        assertThat(next.allowed()).as("one more request fits now").isTrue();
        Decision state = store.execute("k", Command.peek(STEPPED, 0));
        assertThat(state.remaining()).isEqualTo(7);
        assertThat(state.nextPermitNanos()).as("made 45 s ago, it leaves the 1-minute window in 15 s")
                .isEqualTo(15 * SECOND);
        time.advanceNanos(15 * SECOND - 1);
        assertThat(store.execute("k", Command.peek(STEPPED, 0)).remaining()).isEqualTo(7);
        time.advanceNanos(1);
        assertThat(store.execute("k", Command.peek(STEPPED, 0)).remaining()).isEqualTo(10);
    }

    @Test
    void record_tokenBucketPastRequest_isTakenAtItsInstantAndRefilledSince() {
        // Made 30 s ago from a full bucket: 13 owed 3 then, and 30 s at one token per 6 s refilled 5 since.
        store.execute("k", Command.record(TOKEN_BUCKET, 13, 30 * SECOND));

        assertThat(store.execute("k", Command.peek(TOKEN_BUCKET, 0)).remaining()).isEqualTo(2);
    }

    @Test
    void record_olderThanTheWindow_countsNothing() {
        store.execute("k", Command.record(STEPPED, 3, 61 * SECOND));
        assertThat(store.execute("k", Command.peek(STEPPED, 0)).remaining()).isEqualTo(10);
    }

    @Test
    void record_beyondTheLimit_countsEverythingAndTheNextRequestWaits() {
        Decision last = null;
        for (int i = 0; i < 12; i++) {
            last = store.execute("k", Command.record(STEPPED, 1, 0));
        }

        assertThat(last.allowed()).isFalse();
        assertThat(last.retryAfterNanos()).isEqualTo(60 * SECOND);
        assertThat(store.execute("k", Command.peek(STEPPED, 0)).remaining()).isZero();
        assertThat(store.execute("k", Command.decide(STEPPED, 1, 0)).allowed()).isFalse();
        time.advanceNanos(60 * SECOND);
        assertThat(store.execute("k", Command.decide(STEPPED, 1, 0)).remaining()).isEqualTo(9);
    }

    @Test
    void record_tokenBucketBeyondItsLevel_owesTheDebtBeforeTheNextGrant() {
        // 13 from a full bucket of 10 owes 3, and one more permit takes 4 tokens (24 s at one per 6 s).
        Decision after = store.execute("k", Command.record(TOKEN_BUCKET, 13, 0));

        assertThat(after.allowed()).isFalse();
        assertThat(after.retryAfterNanos()).isEqualTo(24 * SECOND);
        assertThat(store.execute("k", Command.peek(TOKEN_BUCKET, 0)).remaining()).isZero();
        time.advanceNanos(24 * SECOND - 1);
        assertThat(store.execute("k", Command.decide(TOKEN_BUCKET, 1, 0)).allowed()).isFalse();
        time.advanceNanos(1);
        assertThat(store.execute("k", Command.decide(TOKEN_BUCKET, 1, 0)).allowed()).isTrue();
    }

    @Test
    void reserve_fullWindow_takesTheSlotsInTheOrderTheyFree() {
        drain("k", STEPPED, 5);
        time.advanceNanos(10 * SECOND);
        drain("k", STEPPED, 5);
        time.advanceNanos(10 * SECOND);

        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Decision reserved = store.execute("k", Command.reserve(STEPPED, 1, 60 * SECOND));
            assertThat(reserved.allowed()).isTrue();
            delays.add(reserved.delayNanos());
        }
        Decision tooFar = store.execute("k", Command.reserve(STEPPED, 1, 60 * SECOND));

        assertThat(delays).containsExactly(40 * SECOND, 40 * SECOND, 40 * SECOND, 40 * SECOND, 40 * SECOND,
                50 * SECOND, 50 * SECOND, 50 * SECOND, 50 * SECOND, 50 * SECOND);
        assertThat(tooFar.allowed()).isFalse();
        assertThat(tooFar.retryAfterNanos()).as("after the first reservations leave again").isEqualTo(100 * SECOND);
        assertThat(store.execute("k", Command.reserve(STEPPED, 1, 100 * SECOND)).delayNanos()).isEqualTo(100 * SECOND);
    }

    @Test
    void reserve_roomNow_grantsWithoutDelay() {
        Decision reserved = store.execute("k", Command.reserve(STEPPED, 4, 60 * SECOND));
        assertThat(reserved.allowed()).isTrue();
        assertThat(reserved.delayNanos()).isZero();
        assertThat(reserved.remaining()).isEqualTo(6);
        assertThat(store.execute("k", Command.peek(STEPPED, 0)).remaining()).isEqualTo(6);
    }

    @Test
    void reserve_manyThreadsOnOneKey_neverShareASlot() throws Exception {
        int threads = racingThreads();
        int perThread = 40 / threads;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<Long>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    List<Long> delays = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        Decision reserved = store.execute("k", Command.reserve(STEPPED, 1, 10 * 60 * SECOND));
                        assertThat(reserved.allowed()).isTrue();
                        delays.add(reserved.delayNanos());
                    }
                    return delays;
                }));
            }
            start.countDown();
            List<Long> delays = new ArrayList<>();
            for (Future<List<Long>> result : results) {
                delays.addAll(result.get(60, TimeUnit.SECONDS));
            }
            // Ten slots a minute, taken in turn: every slot's window holds exactly ten.
            List<Long> expected = new ArrayList<>();
            for (int i = 0; i < threads * perThread; i++) {
                expected.add(i / 10 * 60 * SECOND);
            }
            assertThat(delays).containsExactlyInAnyOrderElementsOf(expected);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void reset_exhaustedKey_startsFromFullCapacity() {
        drain("k", TOKEN_BUCKET, 10);
        store.execute("s", Command.record(STEPPED, 10, 0));

        store.execute("k", Command.reset());
        store.execute("s", Command.reset());

        assertThat(store.execute("k", Command.decide(TOKEN_BUCKET, 1, 0)).remaining()).isEqualTo(9);
        assertThat(store.execute("s", Command.peek(STEPPED, 0)).remaining()).isEqualTo(10);
    }

    @Test
    void reset_keyWithoutState_changesNothingElse() {
        drain("other", TOKEN_BUCKET, 4);
        store.execute("never-seen", Command.reset());
        assertThat(store.execute("other", Command.peek(TOKEN_BUCKET, 0)).remaining()).isEqualTo(6);
    }

    @Test
    void recordAsyncAndReserveAsync_completeWithTheirDecisions() throws Exception {
        Decision recorded = store.executeAsync("k", Command.record(STEPPED, 2, SECOND)).toCompletableFuture().get(30,
                TimeUnit.SECONDS);
        assertThat(recorded.allowed()).isTrue();
        Decision reserved = store.executeAsync("k", Command.reserve(STEPPED, 8, 0)).toCompletableFuture().get(30,
                TimeUnit.SECONDS);
        assertThat(reserved.allowed()).isTrue();
        assertThat(reserved.remaining()).isZero();
        assertThat(store.executeAsync("k", Command.reserve(STEPPED, 1, 0)).toCompletableFuture().get(30,
                TimeUnit.SECONDS).allowed())
                .isFalse();
    }

    /** Ten tokens a minute in a fixed window, counted at estimates and settled at actual costs. */
    protected static final Policy TOKENS = Policy.of(Algorithm.FIXED_WINDOW, TEN_PER_MINUTE).inUnit("tokens");
    /** The same in a token bucket. */
    protected static final Policy TOKEN_BUCKET_TOKENS = TOKEN_BUCKET.inUnit("tokens");

    /**
     * Whether a settle below the estimate gives the difference back: every Sluice store but one deciding as a store of
     * another library (the compare-and-set mode), which keeps the estimate.
     */
    protected boolean givesBack() {
        return true;
    }

    @Test
    void estimate_settledBelow_givesTheDifferenceBack() {
        Counted reserved = join(store.executeAsync("k", Command.estimate(TOKENS, 8, 0)));
        assertThat(reserved.decision().allowed()).isTrue();
        assertThat(reserved.decision().remaining()).isEqualTo(2);

        Decision after = join(reserved.settle(3));

        assertThat(after.remaining()).isEqualTo(givesBack() ? 7 : 2);
        assertThat(store.execute("k", Command.peek(TOKENS, 0)).remaining()).isEqualTo(givesBack() ? 7 : 2);
    }

    @Test
    void estimate_settledLaterInItsWindow_givesBackThereAndTheWindowStillEnds() {
        time.advanceNanos(5 * SECOND);
        Counted reserved = join(store.executeAsync("k", Command.estimate(TOKENS, 8, 0)));
        time.advanceNanos(40 * SECOND);

        join(reserved.settle(1));

        assertThat(store.execute("k", Command.peek(TOKENS, 0)).remaining()).isEqualTo(givesBack() ? 9 : 2);
        time.advanceNanos(15 * SECOND);
        assertThat(store.execute("k", Command.peek(TOKENS, 0)).remaining()).as("the next window").isEqualTo(10);
    }

    @Test
    void estimate_settledAbove_chargesTheExcessAsADebtPaidBackBeforeTheNextGrant() {
        Counted reserved = join(store.executeAsync("k", Command.estimate(TOKEN_BUCKET_TOKENS, 4, 0)));

        Decision after = join(reserved.settle(13));

        // 13 from a full bucket of 10 owes 3; one more token takes 4 tokens of refill (24 s).
        assertThat(after.remaining()).isZero();
        assertThat(store.execute("k", Command.decide(TOKEN_BUCKET_TOKENS, 1,
                0)).retryAfterNanos()).isEqualTo(24 * SECOND);
        time.advanceNanos(24 * SECOND - 1);
        assertThat(store.execute("k", Command.decide(TOKEN_BUCKET_TOKENS, 1, 0)).allowed()).isFalse();
        time.advanceNanos(1);
        assertThat(store.execute("k", Command.decide(TOKEN_BUCKET_TOKENS, 1, 0)).allowed()).isTrue();
    }

    @Test
    void settle_byTheReservationsId_settlesAsItsGrantWould() {
        Counted reserved = join(store.executeAsync("k", Command.estimate(TOKENS, 8, 0)));
        if (!givesBack()) {
            assertThat(reserved.reservation()).as("a store that cannot give back has no id to settle by").isEmpty();
            return;
        }

        Decision after = join(store.executeAsync("k", Command.settle(TOKENS, 8, 3,
                reserved.reservation().orElseThrow())));

        assertThat(after.remaining()).isEqualTo(7);
        assertThat(store.execute("k", Command.peek(TOKENS, 0)).remaining()).isEqualTo(7);
    }

    @Test
    void estimate_rejected_countsNothingAndItsSettleChangesNothing() {
        join(store.executeAsync("k", Command.estimate(TOKENS, 8, 0)));
        Counted rejected = join(store.executeAsync("k", Command.estimate(TOKENS, 3, 0)));

        assertThat(rejected.decision().allowed()).isFalse();
        assertThat(rejected.reservation()).isEmpty();
        join(rejected.settle(0));
        assertThat(store.execute("k", Command.peek(TOKENS, 0)).remaining()).isEqualTo(2);
    }

    @Test
    void estimate_givenBackWhole_countsNothing() {
        Counted reserved = join(store.executeAsync("k", Command.estimate(TOKENS, 8, 0)));

        join(reserved.giveBack());

        assertThat(store.execute("k", Command.peek(TOKENS, 0)).remaining()).isEqualTo(givesBack() ? 10 : 2);
    }

    @Test
    void estimate_manyThreadsSettling_settledCostsInTheWindowNeverExceedTheLimitPlusTheirDebt() throws Exception {
        Policy thousand = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(1_000, Duration.ofMinutes(1))).inUnit("tokens");
        Settled settled = settleConcurrently(List.of(store), racingThreads(), 40, "k", thousand);

        assertSettledWithinTheLimitPlusTheirDebt(settled, 1_000, store.execute("k", Command.peek(thousand,
                0)).remaining(),
                givesBack());
    }

    /**
     * The reproduction (38.1), on every algorithm that counts a unit (the leaky bucket cannot): a reservation
     * of a whole hour's 10,000 tokens settled at 1,300,000,000,000 leaves a debt (or a full window) that refuses the
     * next reservations, however often they come and after a sweep, where a sum wrapped past a long read as a fresh
     * key.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = "LEAKY_BUCKET", mode = EnumSource.Mode.EXCLUDE)
    void estimate_settledAtAHugeCost_refusesTheNextReservationsInsteadOfStartingFull(Algorithm algorithm) {
        Policy tokens = Policy.of(algorithm, Limit.of(10_000, Duration.ofHours(1))).inUnit("tokens");
        Counted reserved = join(store.executeAsync("k", Command.estimate(tokens, 10_000, 0)));
        assertThat(reserved.decision().allowed()).isTrue();

        join(reserved.settle(1_300_000_000_000L));

        for (int attempt = 0; attempt < 3; attempt++) {
            Decision next = join(store.executeAsync("k", Command.estimate(tokens, 10_000, 0))).decision();
            assertThat(next.allowed()).as("reservation %d after the settle", attempt + 1).isFalse();
            assertThat(next.remaining()).isZero();
            time.advance(Duration.ofSeconds(2));
        }
        assertThat(store.execute("k", Command.peek(tokens, 0)).remaining()).as("after the key's sweeps").isZero();
    }

    /**
     * Issue 40.3, on every algorithm that counts a unit: 60 tokens a minute, a reservation of 10 settled at 90, then
     * reservations of 10 while the debt is paid back. Each refusal says the real remaining (a look at the key agrees)
     * and the time until it grows: more than 0 while it is refused, never after its retry, and exact (the remaining
     * has not grown a nanosecond before, and has at it), stepping from one such time to the next until a grant.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = "LEAKY_BUCKET", mode = EnumSource.Mode.EXCLUDE)
    void estimate_refusedWhileADebtIsPaidBack_saysTheRealRemainingAndWhenItGrows(Algorithm algorithm) {
        Policy tokens = Policy.of(algorithm, Limit.of(60, Duration.ofMinutes(1))).inUnit("tokens");
        join(join(store.executeAsync("k", Command.estimate(tokens, 10, 0))).settle(90));

        Decision refused = join(store.executeAsync("k", Command.estimate(tokens, 10, 0))).decision();
        int refusals = 0;
        while (!refused.allowed()) {
            assertThat(++refusals).as("refusals before the debt is paid back").isLessThanOrEqualTo(61);
            long remaining = refused.remaining();
            assertThat(remaining).as("r of refusal %d", refusals).isEqualTo(store.execute("k", Command.peek(tokens,
                    0)).remaining());
            assertThat(refused.nextPermitNanos()).as("t of refusal %d, %d remaining", refusals, remaining)
                    .isPositive().isLessThanOrEqualTo(refused.retryAfterNanos());
            time.advanceNanos(refused.nextPermitNanos() - 1);
            assertThat(store.execute("k", Command.peek(tokens,
                    0)).remaining()).as("r a nanosecond before t").isEqualTo(remaining);
            time.advanceNanos(1);
            refused = join(store.executeAsync("k", Command.estimate(tokens, 10, 0))).decision();
            assertThat(refused.allowed() || refused.remaining() > remaining).as("r grown at t").isTrue();
        }
        assertThat(refusals).as("refused while the debt was paid back").isPositive();
    }

    /** What many threads reserved and settled on one key: the sums over the reservations granted, and the refused. */
    public record Settled(long actual, long kept, long excess, long granted, long refused) {
    }

    /**
     * Reservations of 1 to 50 on {@code key} by {@code threadsEach} threads on each of {@code stores}, {@code attempts}
     * each, each granted one settled at once at 0 to 80 (so a fifth or so above its estimate, a debt).
     */
    public static Settled settleConcurrently(List<? extends CounterStore> stores, int threadsEach, int attempts,
                                             String key, Policy policy) throws Exception {
        java.util.concurrent.atomic.LongAdder actual = new java.util.concurrent.atomic.LongAdder();
        java.util.concurrent.atomic.LongAdder kept = new java.util.concurrent.atomic.LongAdder();
        java.util.concurrent.atomic.LongAdder excess = new java.util.concurrent.atomic.LongAdder();
        java.util.concurrent.atomic.LongAdder granted = new java.util.concurrent.atomic.LongAdder();
        java.util.concurrent.atomic.LongAdder refused = new java.util.concurrent.atomic.LongAdder();
        ExecutorService pool = Executors.newFixedThreadPool(stores.size() * threadsEach);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < stores.size() * threadsEach; t++) {
                CounterStore on = stores.get(t % stores.size());
                java.util.Random random = new java.util.Random(t);
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < attempts; i++) {
                        long estimate = 1 + random.nextInt(50);
                        Counted reserved = join(on.executeAsync(key, Command.estimate(policy, estimate, 0)));
                        if (!reserved.decision().allowed()) {
                            refused.increment();
                            continue;
                        }
                        long cost = random.nextInt(81);
                        join(reserved.settle(cost));
                        granted.increment();
                        actual.add(cost);
                        kept.add(Math.min(cost, estimate));
                        excess.add(Math.max(0, cost - estimate));
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> each : done) {
                each.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return new Settled(actual.sum(), kept.sum(), excess.sum(), granted.sum(), refused.sum());
    }

    /**
     * The settled costs of one window's reservations within {@code limit} plus their debt (so what they kept of their
     * estimates within the limit); the limit reached (some refused); and what the key has left, with {@code exact}
     * give-backs, exactly the limit less the settled costs (nothing once they passed it).
     */
    public static void assertSettledWithinTheLimitPlusTheirDebt(Settled settled, long limit, long remaining,
                                                                boolean exact) {
        assertThat(settled.refused()).as("the limit was reached").isPositive();
        assertThat(settled.actual()).as("settled costs, at most the limit plus their debt")
                .isLessThanOrEqualTo(limit + settled.excess());
        assertThat(settled.kept()).isLessThanOrEqualTo(limit);
        if (exact) {
            assertThat(remaining).as("the key holds the settled costs").isEqualTo(Math.max(0,
                    limit - settled.actual()));
        }
    }

    private static <T> T join(java.util.concurrent.CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Lets the store drop keys whose time to live has passed; stores that expire lazily sweep here. */
    protected abstract void awaitExpiry();

    protected void drain(String key, Policy policy, int permits) {
        for (int i = 0; i < permits; i++) {
            assertThat(store.execute(key, Command.decide(policy, 1, Long.MAX_VALUE)).allowed()).as("permit %d of %d",
                    i + 1, permits)
                    .isTrue();
        }
    }
}
