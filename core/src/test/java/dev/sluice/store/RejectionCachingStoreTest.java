package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RejectionCachingStoreTest {

    private static final Limit TEN_PER_MINUTE = Limit.of(10, Duration.ofMinutes(1));

    private final ManualTimeSource time = new ManualTimeSource();
    private final CountingStore remote = new CountingStore(new LocalCounterStore(time, 1_000));
    private final RejectionCachingStore store = new RejectionCachingStore(remote, time, 100);

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void decide_rejectedKey_isRejectedLocallyUntilRetryAfterAndAgreesWithTheRemote(Algorithm algorithm) {
        Policy policy = Policy.of(algorithm, TEN_PER_MINUTE);
        Decision rejected = drainThenReject(policy);
        int callsAfterRejection = remote.calls.get();

        Decision cached = store.execute("k", Command.decide(policy, 1, Long.MAX_VALUE));
        assertThat(cached.allowed()).isFalse();
        assertThat(cached.retryAfterNanos()).isEqualTo(rejected.retryAfterNanos());
        assertThat(remote.calls.get()).isEqualTo(callsAfterRejection);
        assertThat(store.hits()).isEqualTo(1);

        // Just before the deadline the remote store would reject too; at it, the cache steps aside.
        time.advanceNanos(rejected.retryAfterNanos() - 1);
        assertThat(store.execute("k", Command.decide(policy, 1, Long.MAX_VALUE)).allowed()).isFalse();
        assertThat(remote.delegate.execute("k", Command.peek(policy, 1)).allowed()).isFalse();
        time.advanceNanos(1);
        assertThat(store.execute("k", Command.decide(policy, 1, Long.MAX_VALUE)).allowed()).isTrue();
        assertThat(remote.calls.get()).isEqualTo(callsAfterRejection + 1);
    }

    @Test
    void decide_cachedCostlyRejection_nextPermitIsTheStoresLessTheTimeSince() {
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(3, Duration.ofMinutes(1)));
        store.execute("k", Command.decide(policy, 3, 0));
        Decision rejected = store.execute("k", Command.decide(policy, 2, 0));
        time.advance(Duration.ofSeconds(5));

        Decision cached = store.execute("k", Command.decide(policy, 2, 0));

        assertThat(store.hits()).isEqualTo(1);
        assertThat(rejected.nextPermit()).isEqualTo(Duration.ofSeconds(20));
        assertThat(cached.nextPermit()).isEqualTo(Duration.ofSeconds(15));
        assertThat(cached.retryAfter()).isEqualTo(Duration.ofSeconds(35));
    }

    @Test
    void decide_cacheFull_cachesNewRejectionsOnlyOnceExpiredOnesAreSwept() {
        RejectionCachingStore oneEntry = new RejectionCachingStore(remote, time, 1);
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(1, Duration.ofSeconds(10)));
        for (String key : List.of("a", "b")) {
            oneEntry.execute(key, Command.decide(policy, 1, 0));
            assertThat(oneEntry.execute(key, Command.decide(policy, 1, 0)).allowed()).isFalse();
        }
        int calls = remote.calls.get();
        oneEntry.execute("a", Command.decide(policy, 1, 0));
        oneEntry.execute("b", Command.decide(policy, 1, 0));
        assertThat(remote.calls.get()).as("a cached, b not: the cache was full").isEqualTo(calls + 1);

        time.advance(Duration.ofSeconds(10));
        oneEntry.execute("c", Command.decide(policy, 1, 0));
        assertThat(oneEntry.execute("c", Command.decide(policy, 1, 0)).allowed()).isFalse();
        calls = remote.calls.get();
        assertThat(oneEntry.execute("c", Command.decide(policy, 1, 0)).allowed()).isFalse();
        assertThat(remote.calls.get()).as("c cached once a's expired rejection was swept").isEqualTo(calls);
    }

    @Test
    void decide_smallerCostThanTheRejected_asksTheRemote() {
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, TEN_PER_MINUTE);
        store.execute("k", Command.decide(policy, 8, 0));
        assertThat(store.execute("k", Command.decide(policy, 5, 0)).allowed()).isFalse();

        assertThat(store.execute("k", Command.decide(policy, 2, 0)).allowed()).isTrue();
        assertThat(store.hits()).isZero();
    }

    @Test
    void decide_leakyBucketWithLongerMaxDelay_asksTheRemote() {
        Policy policy = Policy.of(Algorithm.LEAKY_BUCKET, TEN_PER_MINUTE);
        assertThat(store.execute("k", Command.decide(policy, 1, 0)).allowed()).isTrue();
        assertThat(store.execute("k", Command.decide(policy, 1,
                0)).allowed()).as("the next slot is 6 s away").isFalse();

        Decision queued = store.execute("k", Command.decide(policy, 1, Duration.ofSeconds(10).toNanos()));
        assertThat(queued.allowed()).isTrue();
        assertThat(queued.delay()).isEqualTo(Duration.ofSeconds(6));
        assertThat(store.hits()).isZero();
    }

    @Test
    void peek_rejectedKey_alwaysAsksTheRemote() {
        Policy policy = Policy.of(Algorithm.TOKEN_BUCKET, TEN_PER_MINUTE);
        drainThenReject(policy);
        int before = remote.calls.get();
        assertThat(store.execute("k", Command.peek(policy, 0)).remaining()).isZero();
        assertThat(remote.calls.get()).isEqualTo(before + 1);
    }

    private Decision drainThenReject(Policy policy) {
        for (int i = 0; i < 10; i++) {
            assertThat(store.execute("k", Command.decide(policy, 1, Long.MAX_VALUE)).allowed()).isTrue();
        }
        Decision rejected = store.execute("k", Command.decide(policy, 1, Long.MAX_VALUE));
        assertThat(rejected.allowed()).isFalse();
        return rejected;
    }
}
