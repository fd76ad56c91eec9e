package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.FailurePolicyStore.OnFailure;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class CounterStoresTest {

    private static final Policy POLICY = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofMinutes(1)));

    private final ManualTimeSource time = new ManualTimeSource();

    @Test
    void build_storeAnswers_returnsItsDecisions() {
        FailurePolicyStore store = CounterStores.of(new LocalCounterStore(time, 100)).build();

        assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).remaining()).isEqualTo(2);
        assertThat(store.failures()).isZero();
    }

    @Test
    void build_storeDownByDefault_countsOnALocalFallbackSoTheLimitHolds() {
        FailurePolicyStore store = CounterStores.of(new DownStore()).timeSource(time).build();

        for (int i = 0; i < 3; i++) {
            assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).allowed()).isTrue();
        }
        assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).allowed()).isFalse();
        assertThat(store.failures()).isEqualTo(4);
    }

    @Test
    void build_storeDownUnderReject_rejectsAsLimiterUnavailable() {
        FailurePolicyStore store = CounterStores.of(new DownStore()).onFailure(OnFailure.REJECT).build();

        Decision decision = store.execute("k", Command.decide(POLICY, 1, 0));

        assertThat(decision.allowed()).isFalse();
        assertThat(decision.storeUnavailable()).isTrue();
    }

    @Test
    void build_storeDownUnderAllow_allowsAsLimiterUnavailable() {
        FailurePolicyStore store = CounterStores.of(new DownStore()).onFailure(OnFailure.ALLOW).build();

        Decision decision = store.execute("k", Command.decide(POLICY, 1, 0));

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.storeUnavailable()).isTrue();
    }

    @Test
    void build_fallbackMaxKeys_boundsTheFallbackStore() {
        FailurePolicyStore store = CounterStores.of(new DownStore()).timeSource(time).maxKeys(1).build();

        store.execute("a", Command.decide(POLICY, 3, 0));

        assertThat(store.execute("b", Command.decide(POLICY, 1, 0)).storeUnavailable()).as("no room for b").isTrue();
        assertThat(store.execute("a", Command.peek(POLICY, 0)).remaining()).as("a still counted")
                .isEqualTo(POLICY.capacity() - 3);
    }

    @Test
    void build_withRejectionCache_repeatsARejectionWithoutAskingTheStore() {
        CountingStore counted = new CountingStore(new LocalCounterStore(time, 100));
        FailurePolicyStore store = CounterStores.of(counted).timeSource(time).rejectionCache(10).build();
        store.execute("k", Command.decide(POLICY, 3, 0));
        assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).allowed()).isFalse();
        int asked = counted.calls.get();

        assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).allowed()).isFalse();

        assertThat(counted.calls).hasValue(asked);
    }

    @Test
    void build_withoutRejectionCache_asksTheStoreEveryTime() {
        CountingStore counted = new CountingStore(new LocalCounterStore(time, 100));
        FailurePolicyStore store = CounterStores.of(counted).timeSource(time).build();
        store.execute("k", Command.decide(POLICY, 3, 0));
        store.execute("k", Command.decide(POLICY, 1, 0));
        int asked = counted.calls.get();

        store.execute("k", Command.decide(POLICY, 1, 0));

        assertThat(counted.calls).hasValue(asked + 1);
    }

    @Test
    void build_storeDoesNotAnswerWithinTheTimeout_decidesByTheFailurePolicy() {
        FailurePolicyStore store = CounterStores.of(new UnresponsiveStore()).timeout(Duration.ofMillis(1))
                .onFailure(OnFailure.REJECT).build();

        assertThat(store.execute("k", Command.decide(POLICY, 1, 0)).storeUnavailable()).isTrue();

        assertThat(store.timeouts()).isEqualTo(1);
    }

    @Test
    void build_withMaxPending_decidesCallsBeyondItWithoutTheStore() {
        UnresponsiveStore unanswered = new UnresponsiveStore();
        FailurePolicyStore store = CounterStores.of(unanswered).timeout(Duration.ofMillis(1)).maxPending(1).build();
        store.execute("k", Command.decide(POLICY, 1, 0));

        store.execute("k", Command.decide(POLICY, 1, 0));

        assertThat(store.shed()).isEqualTo(1);
        assertThat(unanswered.calls).hasSize(1);
    }

    @Test
    void build_withFailures_tellsTheIdOfTheKeyOnly() {
        List<String> failedRules = new CopyOnWriteArrayList<>();
        FailurePolicyStore store = CounterStores.of(new DownStore()).failures(failedRules::add).build();

        store.execute("search@0123456789ab|203.0.113.9", Command.decide(POLICY, 1, 0));
        store.execute("no rule id", Command.decide(POLICY, 1, 0));

        assertThat(failedRules).containsExactly("search", CounterKeys.NO_ID);
    }

    @Test
    void close_byDefault_closesTheGivenStore() {
        DownStore down = new DownStore();

        CounterStores.of(down).build().close();

        assertThat(down.closed).isTrue();
    }

    @Test
    void close_leaveStoreOpen_leavesTheGivenStoreOpen() {
        DownStore down = new DownStore();

        CounterStores.of(down).leaveStoreOpen().build().close();

        assertThat(down.closed).isFalse();
    }

    /** A stack over a store its owner closes still takes a request back, as all-or-nothing across rules needs. */
    @Test
    void count_leaveStoreOpen_grantTakenBackFromTheGivenStore() {
        LocalCounterStore local = new LocalCounterStore(new ManualTimeSource(), 100);
        CounterStore stack = CounterStores.of(local).leaveStoreOpen().build();

        Counted counted = stack.executeAsync("k", Command.count(POLICY, 1, 0)).toCompletableFuture().join();
        assertThat(counted.decision().remaining()).isEqualTo(2);
        counted.giveBack().toCompletableFuture().join();

        assertThat(local.execute("k", Command.peek(POLICY, 1))).isEqualTo(local.execute("never-counted",
                Command.peek(POLICY, 1)));
    }

    @Test
    void builder_invalidValues_areRefusedNamingTheSetting() {
        CounterStores.Builder builder = CounterStores.of(new DownStore());
        assertThatThrownBy(() -> builder.timeout(Duration.ZERO)).hasMessageContaining("timeout");
        assertThatThrownBy(() -> builder.rejectionCache(-1)).hasMessageContaining("rejectionCache");
        assertThatThrownBy(() -> builder.maxKeys(0)).hasMessageContaining("maxKeys");
        assertThatThrownBy(() -> builder.maxPending(0)).hasMessageContaining("maxPending");
    }
}
