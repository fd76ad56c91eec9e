package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.TimeSource;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Concurrency permits held through a client: recorded as the client's, and freed by the members once the client has
 * been gone for the members' {@link StoreOptions#clientGrace()} (2 s here), not at their maximum hold of a day.
 */
@Tag("cluster")
class PermitClientTest {

    private static final Duration GRACE = Duration.ofSeconds(2);

    private final List<HazelcastCounterStore> members = ClusterSupport.startCluster(2,
            StoreOptions.builder().clientGrace(GRACE).build(), TimeSource.system());
    private final HazelcastCounterStore client = HazelcastCounterStore.connectClient(ClusterSupport.client(
            members.get(0).instance().getConfig().getClusterName(), ClusterSupport.address(members.get(0)),
            ClusterSupport.address(members.get(1))).build());

    @AfterEach
    void stopAll() {
        client.close();
        ClusterSupport.closeAll(members);
    }

    private static Counted acquire(HazelcastCounterStore store, ConcurrencyLimit limit) {
        return store.executeAsync("k", Command.acquire(limit)).toCompletableFuture().join();
    }

    @Test
    void clientGone_holdingPermits_membersFreeThemAfterTheGrace() {
        ConcurrencyLimit two = ConcurrencyLimit.of(2, Duration.ofDays(1));
        assertThat(acquire(client, two).decision().allowed()).isTrue();
        assertThat(acquire(client, two).decision().allowed()).isTrue();
        assertThat(acquire(members.get(0), two).decision().allowed()).isFalse();

        client.instance().getLifecycleService().terminate();

        ClusterSupport.await(() -> members.get(0).permitsFreedFromGoneNodes()
                + members.get(1).permitsFreedFromGoneNodes() == 2,
                GRACE.plus(Duration.ofSeconds(60)), "the gone client's permits to be freed");
        assertThat(members.get(0).permitsHeld()).isZero();
        assertThat(acquire(members.get(0), two).decision().allowed()).isTrue();
    }
}
