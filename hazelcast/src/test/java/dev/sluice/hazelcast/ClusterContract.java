package dev.sluice.hazelcast;

import dev.sluice.ManualTimeSource;
import dev.sluice.hazelcast.internal.wire.WireFormat;
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
 * class; each test gets its own map (so starts empty) and its own manual clock, which every member reads.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ClusterContract extends CounterStoreContract {
    private final int size;
    private final boolean memberBatching;
    private final ClusterSupport.SwitchableClock clock = new ClusterSupport.SwitchableClock();
    private final AtomicInteger maps = new AtomicInteger();
    private List<HazelcastCounterStore> members;

    ClusterContract(int size) {
        this(size, false);
    }

    /** With {@code memberBatching}, decisions on the other members' keys travel in member batches. */
    ClusterContract(int size, boolean memberBatching) {
        this.size = size;
        this.memberBatching = memberBatching;
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
        HazelcastCounterStore created = HazelcastCounterStore.using(members.get(0).instance(),
                StoreOptions.builder().mapName("contract-" + maps.incrementAndGet())
                        .memberBatching(memberBatching).build());
        ClusterSupport.await(() -> created.clusterWireVersion() == WireFormat.NEWEST_READ, Duration.ofSeconds(60),
                "the members to say they read wire format version " + WireFormat.NEWEST_READ);
        return created;
    }

    @Override
    protected long storedKeys(CounterStore store) {
        return ((HazelcastCounterStore) store).size();
    }

    @Override
    protected void awaitExpiry() {
        // Hazelcast expires entries in real time, on whole seconds: a 6 s idle time lives 7 to 8 s.
        ClusterSupport.await(() -> storedKeys(store) == 0, Duration.ofSeconds(30), "idle keys to expire");
    }
}
