package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.impl.HeapData;
import com.hazelcast.map.IMap;
import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.calls.ProcessorDecider;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.SluiceSerializerHook;
import dev.sluice.store.Command;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.SharedEntries;
import java.io.ObjectInputStream;
import java.io.Serial;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What may not enter a cluster of members built by the simple settings: Java-serialized objects (refused by the
 * deserialization filter before any of their code runs), Sluice values whose bytes were forged, and members of
 * another cluster name; and what a reader of the cluster's maps cannot learn: no key value in any map.
 */
@Tag("cluster")
class ClusterBoundaryTest {

    private static final Policy THREE_PER_HOUR = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(3, Duration.ofHours(1)));
    /** What each key value of the map reader's test holds: found anywhere in a map, it is there in clear. */
    private static final String CANARY = "canary-5f1e9d-";
    private static final byte VERSION = (byte) 1; // the version of the types version 1 defined
    private static final byte TOKEN_BUCKET = (byte) Algorithm.TOKEN_BUCKET.id();

    private final List<HazelcastCounterStore> stores = new ArrayList<>();
    private final List<HazelcastInstance> rawClients = new ArrayList<>();
    private List<HazelcastCounterStore> members;

    @BeforeEach
    void startCluster() {
        members = ClusterSupport.startCluster(2, new ManualTimeSource());
        Gadget.READS.set(0);
    }

    @AfterEach
    void stopAll() {
        rawClients.forEach(HazelcastInstance::shutdown);
        ClusterSupport.closeAll(stores);
        ClusterSupport.closeAll(members);
    }

    @Test
    void put_javaSerializedObjectFromAMember_isRefusedUnread() {
        IMap<String, Object> counters = members.get(0).instance().getMap(HazelcastCounterStore.DEFAULT_MAP_NAME);
        assertGadgetRefused(counters, ClusterSupport.keyOwnedBy(members.get(1), "gadget-"));
    }

    @Test
    void put_javaSerializedObjectFromAClientWithoutFilter_isRefusedUnread() {
        HazelcastInstance member = members.get(0).instance();
        ClientConfig config = new ClientConfig().setClusterName(member.getConfig().getClusterName());
        config.getNetworkConfig().addAddress(ClusterSupport.address(members.get(0)));
        HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
        rawClients.add(client);
        assertGadgetRefused(client.getMap(HazelcastCounterStore.DEFAULT_MAP_NAME), "gadget-from-client");
    }

    @Test
    void put_counterStateClaimingTwoBillionLimits_isRefusedWithoutAllocatingThem() {
        ByteBuffer payload = ByteBuffer.allocate(6).put(VERSION).put(TOKEN_BUCKET).putInt(Integer.MAX_VALUE);
        assertForgedValueRefused(payload, "limits, read " + Integer.MAX_VALUE);
    }

    @Test
    void put_counterStateWithAStateLongerThanItsBytes_isRefusedWithoutAllocatingIt() {
        ByteBuffer payload = ByteBuffer.allocate(6 + 4 + 8).put(VERSION).put(TOKEN_BUCKET).putInt(1)
                .putInt(300_000_000).putLong(7);
        assertForgedValueRefused(payload, "a state of 300000000 longs does not fit");
    }

    @Test
    void put_counterStateNamingNoAlgorithm_isRefused() {
        ByteBuffer payload = ByteBuffer.allocate(6).put(VERSION).put((byte) 99).putInt(1);
        assertForgedValueRefused(payload, "no algorithm has id 99");
    }

    /** The filter still lets the errors members send each other through: they are JDK classes. */
    @Test
    void decide_keyHoldingAValueOfAnotherType_failsWithTheOwnersError() {
        String key = ClusterSupport.keyOwnedBy(members.get(1), "foreign-");
        members.get(0).instance().getMap(HazelcastCounterStore.DEFAULT_MAP_NAME).put(members.get(0).mapKey(key),
                "not a counter");

        assertThatThrownBy(() -> members.get(0).execute(key, Command.decide(THREE_PER_HOUR, 1, 0)))
                .isInstanceOf(ClassCastException.class);
    }

    @Test
    void join_memberWithAnotherClusterName_staysOutsideAndCountsApart() {
        int memberPort = members.get(0).instance().getCluster().getLocalMember().getAddress().getPort();
        HazelcastCounterStore stranger = HazelcastCounterStore.startMember(ClusterSupport.member(
                ClusterSupport.newClusterName(), ClusterSupport.freePort(), List.of(memberPort)).build());
        stores.add(stranger);

        assertThat(stranger.instance().getCluster().getMembers()).hasSize(1);
        assertThat(members.get(0).instance().getCluster().getMembers()).hasSize(2);
        members.get(0).execute("shared-name", Command.decide(THREE_PER_HOUR, 3, 0));
        assertThat(stranger.execute("shared-name", Command.decide(THREE_PER_HOUR, 1, 0)).remaining()).isEqualTo(2);
    }

    /**
     * Every map a store writes, read by a plain client as anyone who reaches the cluster could: counters (a rule's
     * key, another shape of key, a reservation), synchronised shards, permits, an override and a console entry, each
     * under a canary key value. No canary appears in any key or value, while the store reads its override and entry
     * back, and the other member applies the override.
     */
    @Test
    void maps_readThroughAPlainClient_holdNoKeyValueInClear() {
        HazelcastCounterStore store = members.get(0);
        String scope = "api@0123456789ab|";
        store.execute(scope + CANARY + "rule", Command.decide(THREE_PER_HOUR, 1, 0));
        store.execute(CANARY + "plain", Command.decide(THREE_PER_HOUR, 1, 0));
        store.executeAsync(scope + CANARY + "reserved", Command.estimate(THREE_PER_HOUR.inUnit("tokens"), 2, 0))
                .toCompletableFuture().join();
        store.execute(scope + CANARY + "synced", Command.decide(THREE_PER_HOUR.synchronised(), 1, 0));
        store.executeAsync(scope + CANARY + "permit",
                Command.acquire(ConcurrencyLimit.of(2))).toCompletableFuture().join();
        store.services().overrides().set(LimitOverride.forKey("api", CANARY + "override").blocked()
                .lasting(Duration.ofMinutes(10)).reason("ticket").setBy("ops").build(store.services().overrides().now(
                        )));
        SharedEntries console = store.services().sharedEntries("console");
        console.put("instance-1", "{\"keys\":[\"" + CANARY + "console\"]}", Duration.ofMinutes(1));
        IMap<String, Object> shards = store.instance().getMap(ProcessorDecider.SYNCED_MAP_PREFIX
                + HazelcastCounterStore.DEFAULT_MAP_NAME);
        ClusterSupport.await(() -> !shards.isEmpty(), Duration.ofSeconds(30), "the synchronised hits on the owner");
        ClusterSupport.await(() -> !console.entries().isEmpty(), Duration.ofSeconds(30), "the console entry");

        List<String> read = ClusterSupport.mapContents(store);

        String counters = HazelcastCounterStore.DEFAULT_MAP_NAME;
        assertThat(read).extracting(line -> line.substring(0, line.indexOf(':'))).as("the maps read")
                .contains(counters, shards.getName(), counters + HazelcastCounterStore.PERMITS_MAP_SUFFIX,
                        counters + HazelcastCounterStore.OVERRIDES_MAP_SUFFIX, counters + ".console",
                        counters + ".key-fingerprint");
        assertThat(read).as("entries holding a key value in clear").noneMatch(line -> line.contains(CANARY));
        assertThat(read).as("the rule's scope stays readable, for the per-rule figures")
                .anyMatch(line -> line.startsWith(counters + ": " + scope));
        assertThat(console.entries()).containsValue("{\"keys\":[\"" + CANARY + "console\"]}");
        ClusterSupport.await(() -> members.get(1).services().overrides().active().find("api",
                CANARY + "override").isPresent(),
                Duration.ofSeconds(30), "the override on the other member");
    }

    /**
     * Puts hand-made bytes that claim to be a {@link CounterState} ({@code payload} being what its {@code readData}
     * reads) into the counters map, from a member that does not own the key: the owner's read fails with
     * {@code message} and the key stays usable.
     */
    private void assertForgedValueRefused(ByteBuffer payload, String message) {
        String key = ClusterSupport.keyOwnedBy(members.get(1), "forged-");
        ByteBuffer bytes = ByteBuffer.allocate(4 + 4 + 1 + 4 + 4 + payload.position())
                .putInt(0) // no partition hash
                .putInt(-2) // Hazelcast's type id of DataSerializable
                .put((byte) 1) // header: identified
                .putInt(SluiceSerializerHook.FACTORY_ID)
                .putInt(SluiceSerializerHook.COUNTER_STATE)
                .put(payload.array(), 0, payload.position());
        IMap<String, Object> counters = members.get(0).instance().getMap(HazelcastCounterStore.DEFAULT_MAP_NAME);

        assertThatThrownBy(() -> counters.put(members.get(0).mapKey(key), new HeapData(bytes.array())))
                .hasStackTraceContaining(message);
        assertThat(members.get(0).execute(key, Command.decide(THREE_PER_HOUR, 1, 0)).remaining()).isEqualTo(2);
    }

    private void assertGadgetRefused(IMap<String, Object> counters, String key) {
        String mapKey = members.get(0).mapKey(key);
        assertThatThrownBy(() -> counters.put(mapKey, new Gadget()))
                .hasStackTraceContaining("is not allowed");
        assertThat(Gadget.READS).as("gadget code run on deserialization").hasValue(0);
        assertThat(counters.containsKey(mapKey)).isFalse();
        for (int i = 0; i < 3; i++) {
            assertThat(members.get(0).execute(key, Command.decide(THREE_PER_HOUR, 1, 0)).allowed()).isTrue();
        }
        assertThat(members.get(1).execute(key, Command.decide(THREE_PER_HOUR, 1, 0)).allowed()).isFalse();
    }

    /** Stands for a deserialization gadget: counts every time Java deserialization runs its code. */
    static final class Gadget implements Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        static final AtomicInteger READS = new AtomicInteger();

        @Serial
        private void readObject(ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
            in.defaultReadObject();
            READS.incrementAndGet();
        }
    }
}
