package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link CounterStore} that holds concurrency permits ({@link Command.Acquire}) must do. A
 * store's test extends this class and says how to build the store on a manual clock and how many permits it holds.
 */
public abstract class PermitStoreContract {

    protected static final ConcurrencyLimit TWO = ConcurrencyLimit.of(2, Duration.ofMinutes(1));

    protected ManualTimeSource time;
    protected CounterStore store;

    /** A new, empty store whose permits' maximum hold is on {@code time}. */
    protected abstract CounterStore newStore(ManualTimeSource time);

    /** The permits the store holds now, over every key, expired ones not yet dropped included. */
    protected abstract long permitsHeld();

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

    private Counted acquire(String key, ConcurrencyLimit limit) {
        return store.executeAsync(key, Command.acquire(limit)).toCompletableFuture().join();
    }

    private Decision release(String key, String permit) {
        return store.executeAsync(key, Command.release(TWO, permit)).toCompletableFuture().join();
    }

    @Test
    void acquire_belowTheLimit_grantsAndSaysWhatIsLeft() {
        Decision first = acquire("k", TWO).decision();
        Decision second = acquire("k", TWO).decision();

        assertThat(first.allowed()).isTrue();
        assertThat(first.limit()).isEqualTo(2);
        assertThat(first.remaining()).isEqualTo(1);
        assertThat(first.limitName()).isEqualTo("2 concurrent");
        assertThat(second.allowed()).isTrue();
        assertThat(second.remaining()).isZero();
        assertThat(permitsHeld()).isEqualTo(2);
    }

    @Test
    void acquire_atTheLimit_rejectsUntilTheEarliestMaxHoldAtMost() {
        acquire("k", TWO);
        time.advance(Duration.ofSeconds(10));
        acquire("k", TWO);

        Decision third = acquire("k", TWO).decision();

        assertThat(third.allowed()).isFalse();
        assertThat(third.remaining()).isZero();
        assertThat(third.retryAfter()).isEqualTo(Duration.ofSeconds(50));
        assertThat(permitsHeld()).isEqualTo(2);
    }

    @Test
    void giveBack_ofAGrant_releasesThePermitForTheNextRequest() {
        Counted first = acquire("k", TWO);
        acquire("k", TWO);

        first.giveBack().toCompletableFuture().join();

        assertThat(acquire("k", TWO).decision().allowed()).isTrue();
    }

    @Test
    void giveBack_twice_releasesOnePermitOnly() {
        Counted first = acquire("k", TWO);
        acquire("k", TWO);

        first.giveBack().toCompletableFuture().join();
        first.giveBack().toCompletableFuture().join();

        assertThat(acquire("k", TWO).decision().allowed()).isTrue();
        assertThat(acquire("k", TWO).decision().allowed()).isFalse();
    }

    @Test
    void release_grantsId_releasesThePermitForTheNextRequest() {
        Counted first = acquire("k", TWO);
        acquire("k", TWO);

        Decision after = release("k", first.permit().orElseThrow());

        assertThat(after.allowed()).isTrue();
        assertThat(after.remaining()).isEqualTo(1);
        assertThat(after.limitName()).isEqualTo("2 concurrent");
        assertThat(acquire("k", TWO).decision().allowed()).isTrue();
        assertThat(acquire("k", TWO).decision().allowed()).isFalse();
    }

    @Test
    void release_twiceAndAfterGiveBack_releasesOnePermitOnly() {
        Counted first = acquire("k", TWO);
        acquire("k", TWO);

        first.giveBack().toCompletableFuture().join();
        release("k", first.permit().orElseThrow());
        release("k", first.permit().orElseThrow());

        assertThat(acquire("k", TWO).decision().allowed()).isTrue();
        assertThat(acquire("k", TWO).decision().allowed()).isFalse();
        assertThat(permitsHeld()).isEqualTo(2);
    }

    @Test
    void release_permitPastItsMaxHold_releasesNothingElse() {
        Counted first = acquire("k", TWO);
        time.advance(Duration.ofMinutes(1));
        acquire("k", TWO);
        acquire("k", TWO);

        release("k", first.permit().orElseThrow());

        assertThat(acquire("k", TWO).decision().allowed()).isFalse();
    }

    @Test
    void acquire_grants_haveDistinctPermitIds() {
        String first = acquire("k", TWO).permit().orElseThrow();
        String second = acquire("k", TWO).permit().orElseThrow();

        assertThat(first).isNotEqualTo(second);
        assertThat(acquire("k", TWO).permit()).isEmpty();
    }

    @Test
    void acquire_shorterMaxHoldThanTheKeysOthers_returnsAtItsOwnEnd() {
        ConcurrencyLimit leased = ConcurrencyLimit.of(2, Duration.ofSeconds(10)).named(TWO.name());
        acquire("k", TWO);
        acquire("k", leased);

        Decision full = acquire("k", TWO).decision();
        time.advance(Duration.ofSeconds(10));

        assertThat(full.allowed()).isFalse();
        assertThat(full.retryAfter()).isEqualTo(Duration.ofSeconds(10));
        assertThat(acquire("k", TWO).decision().allowed()).isTrue();
        assertThat(acquire("k", TWO).decision().allowed()).isFalse();
    }

    @Test
    void acquire_permitNeverReleased_returnsOnItsOwnAtMaxHold() {
        acquire("k", TWO);
        acquire("k", TWO);

        time.advance(Duration.ofMinutes(1));

        assertThat(acquire("k", TWO).decision().allowed()).isTrue();
    }

    @Test
    void acquire_distinctKeys_holdTheirOwnPermits() {
        acquire("a", TWO);
        acquire("a", TWO);

        assertThat(acquire("b", TWO).decision().allowed()).isTrue();
        assertThat(acquire("a", TWO).decision().allowed()).isFalse();
    }

    @Test
    void reset_keyHoldingPermits_forgetsThem() {
        acquire("k", TWO);
        acquire("k", TWO);

        store.execute("k", Command.reset());

        assertThat(acquire("k", TWO).decision().allowed()).isTrue();
    }

    @Test
    void acquire_racingThreads_neverHoldMoreThanTheLimitAndEndWithNoneHeld() throws Exception {
        PermitRace.Outcome race = PermitRace.run(List.of(store), racingThreads(), 300, "hot", ConcurrencyLimit.of(3));

        assertThat(race.mostInFlight()).isBetween(1, 3);
        assertThat(race.granted()).isPositive();
        assertThat(permitsHeld()).isZero();
    }
}
