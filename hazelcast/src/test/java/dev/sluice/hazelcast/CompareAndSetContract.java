package dev.sluice.hazelcast;

import dev.sluice.ManualTimeSource;
import dev.sluice.TimeSource;
import dev.sluice.store.CounterStore;
import dev.sluice.store.CounterStoreContract;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The store contract for {@link CompareAndSetCounterStore} on a real cluster of {@code size} members in this JVM. One
 * cluster serves all the tests of a class; each test gets its own map (so starts empty), and every store of a test
 * decides by the test's manual clock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class CompareAndSetContract extends CounterStoreContract {

    /** Generous: these tests assert exactness under contention, never the give-up path. */
    static final Duration RETRY_TIMEOUT = Duration.ofSeconds(60);

    private final int size;
    private final AtomicInteger maps = new AtomicInteger();
    List<HazelcastCounterStore> members;
    /** The map of the current test. */
    String mapName;

    CompareAndSetContract(int size) {
        this.size = size;
    }

    @BeforeAll
    void startCluster() {
        // The members' own clock is never read: the compare-and-set store decides by the caller's.
        members = ClusterSupport.startCluster(size, TimeSource.system());
    }

    @AfterAll
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    @Override
    protected CounterStore newStore(ManualTimeSource time) {
        mapName = "cas-contract-" + maps.incrementAndGet();
        return storeOn(0, time);
    }

    /** A store of the current test's map through member {@code member}. */
    CompareAndSetCounterStore storeOn(int member, TimeSource clock) {
        return new CompareAndSetCounterStore(members.get(member).instance(), mapName, RETRY_TIMEOUT, clock);
    }

    /** The compare-and-set mode settles as a store of another library: an excess recorded, nothing given back. */
    @Override
    protected boolean givesBack() {
        return false;
    }

    @Override
    protected long storedKeys(CounterStore store) {
        return ((CompareAndSetCounterStore) store).size();
    }

    @Override
    protected void awaitExpiry() {
        // Hazelcast expires entries in real time, on whole seconds: a 6 s idle time lives 7 to 8 s.
        ClusterSupport.await(() -> storedKeys(store) == 0, Duration.ofSeconds(30), "idle keys to expire");
    }
}
