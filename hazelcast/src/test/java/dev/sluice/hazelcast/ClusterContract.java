package dev.sluice.hazelcast;

import dev.sluice.ManualTimeSource;
import dev.sluice.store.CounterStore;
import dev.sluice.store.CounterStoreContract;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * The store contract on a real cluster of {@code size} members in this JVM. One cluster serves all the tests of a
 * class; each test gets its own map (so starts empty) and its own manual clock, which every member reads. Synchronised,
 * every policy takes the synchronised route ({@link SynchronisingStore}): on one node it must be exact.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ClusterContract extends CounterStoreContract {
    private final int size;
    private final boolean synced;
    private final ClusterSupport.SwitchableClock clock = new ClusterSupport.SwitchableClock();
    private final AtomicInteger maps = new AtomicInteger();
    private List<HazelcastCounterStore> members;

    ClusterContract(int size) {
        this(size, false);
    }

    /** With {@code synced}, every policy is synchronised. */
    ClusterContract(int size, boolean synced) {
        this.size = size;
        this.synced = synced;
    }

    @BeforeAll
    void startCluster() {
        members = ClusterSupport.startCluster(size, clock);
    }

    @AfterAll
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    /**
     * A store once it has found the wire format version its members read (it asks as it starts, and until they answer
     * uses the oldest, whose reservations have no id to settle by): the contract is that of the store as it runs.
     */
    @Override
    protected CounterStore newStore(ManualTimeSource time) {
        clock.use(time);
        HazelcastCounterStore cluster = HazelcastCounterStore.using(members.get(0).instance(),
                StoreOptions.builder().mapName("contract-" + maps.incrementAndGet()).build());
        return synced ? new SynchronisingStore(cluster) : cluster;
    }

    /** The counters map's keys; synchronised, the views this node keeps (its owners' keys leave on their own). */
    @Override
    protected long storedKeys(CounterStore store) {
        return store instanceof SynchronisingStore syncing ? syncing.cluster().syncs().keys()
                : ((HazelcastCounterStore) store).size();
    }

    @Override
    protected void awaitExpiry() {
        if (store instanceof SynchronisingStore syncing) {
            syncing.cluster().syncs().forgetIdle();
            return;
        }
        // Hazelcast expires entries in real time, on whole seconds: a 6 s idle time lives 7 to 8 s.
        ClusterSupport.await(() -> storedKeys(store) == 0, Duration.ofSeconds(30), "idle keys to expire");
    }
}
