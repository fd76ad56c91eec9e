package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import dev.sluice.store.StoreHealth;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running cluster (an embedded Sluice member and a client store) that a plain member process, without Sluice's jars,
 * joins and later leaves: the stores notice it, say so at ERROR and in their health, follow their
 * {@link StoreOptions#onIncompatibleMembers()} setting while it is there, and go back to the processors after.
 */
@Tag("cluster")
class PlainMemberJoinProcessTest {

    private static final Policy THREE_PER_HOUR = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofHours(1)));
    private static final Duration JOIN_WAIT = Duration.ofSeconds(120);

    /** Held: {@code java.util.logging} keeps loggers weakly. */
    private static final Logger STORE_LOG = Logger.getLogger(HazelcastCounterStore.class.getName());

    @TempDir
    Path dir;

    private final Queue<String> errors = new ConcurrentLinkedQueue<>();
    private final Handler errorCapture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
                errors.add(record.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final List<HazelcastCounterStore> stores = new ArrayList<>();
    private Process plain;

    @BeforeEach
    void captureErrors() {
        STORE_LOG.addHandler(errorCapture);
    }

    @AfterEach
    void stop() throws InterruptedException {
        STORE_LOG.removeHandler(errorCapture);
        for (int i = stores.size() - 1; i >= 0; i--) {
            stores.get(i).close();
        }
        if (plain != null) {
            PlainMembers.stop(plain);
        }
    }

    @Test
    void plainMemberJoins_refusing_logsItsAddressCountsItAndRefusesUntilItLeaves() throws Exception {
        HazelcastCounterStore client = startCluster(StoreOptions.defaults());
        assertThat(client.execute("before", Command.decide(THREE_PER_HOUR, 1, 0)).allowed()).isTrue();

        int plainPort = joinPlainMember();

        assertThat(errors).singleElement().asString()
                .contains("member [" + ClusterSupport.LOOPBACK + "]:" + plainPort + ", uuid ")
                .contains("No DataSerializerFactory registered")
                .contains("dev.sluice:sluice-hazelcast and dev.sluice:sluice-core")
                .contains("hazelcast-incompatible-members=compare-and-set")
                .contains("Every call fails until they can; the failure policy decides.");
        StoreHealth health = client.services().health();
        assertThat(health.mode()).isEqualTo("hazelcast-client refused: incompatible members");
        assertThat(health.membersSeen()).isEqualTo(2);
        assertThat(health.cluster().incompatibleMembersSeen()).isEqualTo(1);
        int refused = 0;
        for (int i = 0; i < 10; i++) {
            try {
                client.execute("during-" + i, Command.decide(THREE_PER_HOUR, 1, 0));
            } catch (IllegalStateException e) {
                assertThat(e).hasMessageContaining("cannot run Sluice's entry processors");
                refused++;
            }
        }
        assertThat(refused).as("decisions refused, for the failure policy to decide").isEqualTo(10);

        leavePlainMember(client);

        assertThat(client.services().health().mode()).isEqualTo("hazelcast-client");
        assertThat(client.services().health().cluster().incompatibleMembersSeen()).as("seen since the start")
                .isEqualTo(1);
        assertThat(admitted(client, "after", 5)).as("exact again, on the processors").isEqualTo(3);
    }

    @Test
    void plainMemberJoins_compareAndSetChosen_decidesExactlyOnTheCallersUntilItLeaves() throws Exception {
        HazelcastCounterStore client = startCluster(StoreOptions.builder()
                .onIncompatibleMembers(StoreOptions.OnIncompatibleMembers.COMPARE_AND_SET).build());

        int plainPort = joinPlainMember();

        assertThat(errors).singleElement().asString()
                .contains("member [" + ClusterSupport.LOOPBACK + "]:" + plainPort + ", uuid ")
                .contains("Deciding with compare-and-set writes in map '");
        assertThat(client.services().health().mode()).isEqualTo("hazelcast-client compare-and-set");
        assertThat(client.services().health().cluster().incompatibleMembersSeen()).isEqualTo(1);
        assertThat(admitted(client, "during", 5)).as("exact, with compare-and-set writes").isEqualTo(3);

        leavePlainMember(client);

        assertThat(client.services().health().mode()).isEqualTo("hazelcast-client");
        assertThat(admitted(client, "after", 5)).as("exact again, on the processors").isEqualTo(3);
    }

    /** An embedded Sluice member and a client store of it, both with {@code options}; returns the client's store. */
    private HazelcastCounterStore startCluster(StoreOptions options) {
        String clusterName = ClusterSupport.newClusterName();
        int port = ClusterSupport.freePort();
        HazelcastCounterStore member = HazelcastCounterStore.startMember(
                ClusterSupport.member(clusterName, port, List.of(port)).store(options).build());
        stores.add(member);
        HazelcastCounterStore client = HazelcastCounterStore.connectClient(ClusterSupport.client(clusterName,
                ClusterSupport.address(member)).store(options).build());
        stores.add(client);
        assertThat(client.services().health().cluster().incompatibleMembersSeen()).isZero();
        assertThat(errors).isEmpty();
        return client;
    }

    /** Starts a plain member that joins the cluster, waits until the client has found it incompatible: its port. */
    private int joinPlainMember() throws Exception {
        HazelcastCounterStore member = stores.get(0);
        int port = ClusterSupport.freePort();
        int memberPort = member.instance().getCluster().getLocalMember().getAddress().getPort();
        plain = PlainMembers.start(dir, member.instance().getConfig().getClusterName(), port, List.of(memberPort),
                PlainMembers.hazelcastJarOnly());
        HazelcastCounterStore client = stores.get(1);
        ClusterSupport.await(() -> client.services().health().cluster().incompatibleMembersSeen() == 1
                        && member.services().health().cluster().incompatibleMembersSeen() == 1, JOIN_WAIT,
                "both stores to find the plain member incompatible");
        // One ERROR from each store: keep the client's.
        assertThat(errors).hasSize(2);
        errors.poll();
        return port;
    }

    private void leavePlainMember(HazelcastCounterStore client) throws InterruptedException {
        PlainMembers.stop(plain);
        plain = null;
        ClusterSupport.await(() -> client.services().health().membersSeen() == 1
                        && client.services().health().mode().equals("hazelcast-client"), JOIN_WAIT,
                "the plain member to leave and the client to go back to the processors");
    }

    /** How many of {@code attempts} decisions on {@code key} the store admits. */
    private static int admitted(HazelcastCounterStore store, String key, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            if (store.execute(key, Command.decide(THREE_PER_HOUR, 1, 0)).allowed()) {
                admitted++;
            }
        }
        return admitted;
    }
}
