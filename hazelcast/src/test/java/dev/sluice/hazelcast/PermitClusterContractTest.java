package dev.sluice.hazelcast;

import dev.sluice.ManualTimeSource;
import dev.sluice.store.CounterStore;
import dev.sluice.store.PermitStoreContract;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;

/**
 * The permit contract on three members, so most keys are owned by a member other than the caller: one cluster for
 * the class, a map per test, and a manual clock every member reads.
 */
@Tag("cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PermitClusterContractTest extends PermitStoreContract {

    private final ClusterSupport.SwitchableClock clock = new ClusterSupport.SwitchableClock();
    private final AtomicInteger maps = new AtomicInteger();
    private List<HazelcastCounterStore> members;

    @BeforeAll
    void startCluster() {
        members = ClusterSupport.startCluster(3, clock);
    }

    @AfterAll
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    @Override
    protected CounterStore newStore(ManualTimeSource time) {
        clock.use(time);
        return HazelcastCounterStore.using(members.get(0).instance(),
                StoreOptions.builder().mapName("permits-" + maps.incrementAndGet()).build());
    }

    @Override
    protected long permitsHeld() {
        return ((HazelcastCounterStore) store).permitsHeld();
    }
}
