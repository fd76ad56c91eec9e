package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.nio.serialization.HazelcastSerializationException;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.calls.Batcher;
import dev.sluice.hazelcast.internal.wire.BatchApplyProcessor;
import dev.sluice.hazelcast.internal.wire.CallAnswer;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import dev.sluice.store.Command;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling upgrade in miniature: two member processes (separate JVMs on loopback), one told to read a version this
 * release does not know ({@value WireFormat#VERSION_PROPERTY}{@code =2}, as a setting meant for a later release would),
 * and a client of this release. The member refuses the setting and reads and announces version 1, so the client finds
 * version 1 everywhere, batches and stays exact; bytes of version 2, what a later release sends once every member
 * reads it, are refused by that member with an error naming the versions, counting nothing.
 */
@Tag("cluster")
class MixedWireVersionProcessesTest {

    private static final Policy HUNDRED_PER_HOUR = Policy.of(Algorithm.SLIDING_WINDOW_LOG,
            Limit.of(100, Duration.ofHours(1)));
    private static final int THREADS = 16;
    private static final int ATTEMPTS_PER_THREAD = 20;
    /** The version after this release's. */
    private static final int NEXT = WireFormat.NEWEST_KNOWN + 1;

    @TempDir
    Path logs;

    @Test
    void decide_memberToldToReadANewerVersion_readsVersion1_refusesNewerBytes_exactThroughout() throws Exception {
        try (MemberProcesses cluster = new MemberProcesses(2, logs,
                member -> member == 0 ? List.of("wire=" + NEXT) : List.of());
             HazelcastCounterStore client = HazelcastCounterStore.connectClient(
                     ClusterSupport.client(cluster.clusterName(), cluster.addresses()).build())) {
            ClusterSupport.await(() -> client.clusterWireVersion() == WireFormat.NEWEST_KNOWN, Duration.ofSeconds(60),
                    "the client to find every member reading version " + WireFormat.NEWEST_KNOWN);
            String onHeldMember = keyOwnedByPort(client, cluster.port(0), "held-");

            assertThat(admitted(client, onHeldMember)).isEqualTo(100);
            assertThat(client.batchesSent()).isPositive();

            String untouched = keyOwnedByPort(client, cluster.port(0), "untouched-");
            OtherVersionBytes newer = new OtherVersionBytes(
                    ((SerializationServiceSupport) client.instance()).getSerializationService(),
                    new BatchApplyProcessor(List.of(request(), request())), NEXT);
            assertThatThrownBy(() -> client.instance()
                    .<String, Object>getMap(HazelcastCounterStore.DEFAULT_MAP_NAME)
                    .executeOnKey(client.mapKey(untouched), newer))
                    .isInstanceOf(HazelcastSerializationException.class)
                    .hasMessageContaining("wire format version " + NEXT)
                    .hasMessageContaining("reads versions 1 to 1");
            assertThat(client.execute(untouched, Command.peek(HUNDRED_PER_HOUR, 0)).remaining()).isEqualTo(100);
        }
    }

    /** Sixteen threads try {@code key} twenty times each; returns how many were admitted. */
    private static int admitted(HazelcastCounterStore store, String key) throws Exception {
        return ClusterSupport.admitted(List.of(store), THREADS, ATTEMPTS_PER_THREAD, key, HUNDRED_PER_HOUR, 0);
    }

    private static String keyOwnedByPort(HazelcastCounterStore client, int port, String prefix) {
        String[] found = new String[1];
        ClusterSupport.await(() -> {
            for (int i = 0; i < 10_000; i++) {
                var owner = client.instance().getPartitionService().getPartition(client.mapKey(prefix + i))
                        .getOwner();
                if (owner != null && owner.getAddress().getPort() == port) {
                    found[0] = prefix + i;
                    return true;
                }
            }
            return false;
        }, Duration.ofSeconds(30), "a key owned by the member on port " + port);
        return found[0];
    }

    private static Batcher.Request request() {
        return new Batcher.Request("k", HUNDRED_PER_HOUR, 1, 0, CallAnswer.waiting());
    }
}
