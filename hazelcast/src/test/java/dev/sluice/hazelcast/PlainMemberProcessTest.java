package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.CounterCommand;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.SluiceSerializerHook;
import dev.sluice.store.Command;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plain Hazelcast member, in a JVM whose class path holds the Hazelcast jar and nothing of Sluice, started by
 * Hazelcast's own {@code HazelcastMemberStarter}: the compare-and-set store decides through it as a client, where the
 * entry-processor store cannot.
 */
@Tag("cluster")
class PlainMemberProcessTest {

    private static final Policy TEN_PER_MINUTE = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofMinutes(1)));

    @TempDir
    Path dir;

    private Process member;
    private HazelcastInstance client;

    @AfterEach
    void stop() throws InterruptedException {
        if (client != null) {
            client.shutdown();
        }
        if (member != null) {
            PlainMembers.stop(member);
        }
    }

    @Test
    void decide_throughAMemberWithoutSluice_countsExactly() throws Exception {
        String clusterName = ClusterSupport.newClusterName();
        int port = ClusterSupport.freePort();
        List<String> classPath = PlainMembers.hazelcastJarOnly();
        assertThat(classPath).hasSize(1).noneMatch(entry -> entry.contains("sluice"));
        member = PlainMembers.start(dir, clusterName, port, List.of(port), classPath);
        client = connect(clusterName, port);

        IMap<String, CounterState> processed = client.getMap("processors");
        assertThatThrownBy(() -> processed.executeOnKey("k", CounterCommand.apply(TEN_PER_MINUTE, 1, 0)))
                .as("the member cannot run the entry-processor store's processors")
                .isInstanceOf(HazelcastSerializationException.class)
                .hasMessageContaining("No DataSerializerFactory registered for namespace: "
                        + SluiceSerializerHook.FACTORY_ID);

        CompareAndSetCounterStore store = new CompareAndSetCounterStore(client, "counters", Duration.ofSeconds(30),
                new ManualTimeSource());
        for (int i = 0; i < 10; i++) {
            assertThat(store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0)).allowed()).as("permit %d",
                    i + 1).isTrue();
        }
        assertThat(store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0)).allowed()).isFalse();
        assertThat(store.execute("k", Command.peek(TEN_PER_MINUTE, 0)).remaining()).isZero();
        assertThat(client.getMap("counters").getEntryView("k").getTtl()).isEqualTo(61_000);
    }

    @Test
    void connectClient_membersWithoutSluice_refusesToStartNamingTheCauseAndTheFix() throws Exception {
        String clusterName = ClusterSupport.newClusterName();
        int port = ClusterSupport.freePort();
        member = PlainMembers.start(dir, clusterName, port, List.of(port), PlainMembers.hazelcastJarOnly());
        ClientOptions options = ClusterSupport.client(clusterName, ClusterSupport.LOOPBACK + ":" + port)
                .startWait(Duration.ofSeconds(90)).build();

        assertThatThrownBy(() -> HazelcastCounterStore.connectClient(options))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the Hazelcast members cannot run Sluice's entry processors")
                .hasMessageContaining("dev.sluice:sluice-hazelcast and dev.sluice:sluice-core")
                .hasMessageContaining("onIncompatibleMembers(COMPARE_AND_SET)");
    }

    @Test
    void connectClient_membersWithoutSluiceAndCompareAndSetChosen_decidesExactlyOnTheCallers() throws Exception {
        String clusterName = ClusterSupport.newClusterName();
        int port = ClusterSupport.freePort();
        member = PlainMembers.start(dir, clusterName, port, List.of(port), PlainMembers.hazelcastJarOnly());
        ClientOptions options = ClusterSupport.client(clusterName, ClusterSupport.LOOPBACK + ":" + port)
                .startWait(Duration.ofSeconds(90))
                .store(StoreOptions.builder()
                        .onIncompatibleMembers(StoreOptions.OnIncompatibleMembers.COMPARE_AND_SET).build())
                .build();

        try (HazelcastCounterStore store = HazelcastCounterStore.connectClient(options)) {
            for (int i = 0; i < 10; i++) {
                assertThat(store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0)).allowed()).as("permit %d",
                        i + 1).isTrue();
            }
            assertThat(store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0)).allowed()).isFalse();
            assertThat(store.services().health().mode()).isEqualTo("hazelcast-client compare-and-set");
            assertThat(store.services().health().membersSeen()).isEqualTo(1);
        }
    }

    /** A client of the plain member, waiting up to 90 s for it to accept connections. */
    private static HazelcastInstance connect(String clusterName, int port) {
        ClientConfig config = new ClientConfig().setClusterName(clusterName);
        config.setProperty("hazelcast.logging.type", "jdk");
        config.getNetworkConfig().addAddress(ClusterSupport.LOOPBACK + ":" + port);
        config.getConnectionStrategyConfig().getConnectionRetryConfig().setClusterConnectTimeoutMillis(90_000);
        return HazelcastClient.newHazelcastClient(config);
    }
}
