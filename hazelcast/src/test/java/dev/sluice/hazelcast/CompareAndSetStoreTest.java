package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.core.EntryView;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import dev.sluice.store.FailurePolicyStore;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The compare-and-set store on one real member: what it writes (plain strings, with a time to live), how it retries
 * and gives up under conflicting writes, and why its values are strings (Hazelcast's replace on an {@code OBJECT}
 * map). Each test uses its own map.
 */
@Tag("cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompareAndSetStoreTest {

    private static final Policy TEN_PER_MINUTE = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofMinutes(1)));

    private final ManualTimeSource time = new ManualTimeSource();
    private final AtomicInteger maps = new AtomicInteger();
    private List<HazelcastCounterStore> members;
    private HazelcastInstance member;

    @BeforeAll
    void startMember() {
        members = ClusterSupport.startCluster(1, TimeSource.system());
        member = members.get(0).instance();
    }

    @AfterAll
    void stopMember() {
        ClusterSupport.closeAll(members);
    }

    @Test
    void decide_grant_storesAPlainStringThatAPlainClientReads() {
        String map = newMapName();
        new CompareAndSetCounterStore(member, map, Duration.ofSeconds(30), time).execute("k",
                Command.decide(TEN_PER_MINUTE, 1, 0));

        ClientConfig config = new ClientConfig().setClusterName(member.getConfig().getClusterName());
        config.getNetworkConfig().addAddress(ClusterSupport.address(members.get(0)));
        HazelcastInstance plainClient = HazelcastClient.newHazelcastClient(config);
        try {
            Object value = plainClient.getMap(map).get("k");
            assertThat(value).isEqualTo("1;9,dfct6ww35s00,0");
        } finally {
            plainClient.shutdown();
        }
    }

    @Test
    void decide_grants_setTheTimeToLiveOfTheStateHeld() {
        String map = newMapName();
        CompareAndSetCounterStore store = new CompareAndSetCounterStore(member, map, Duration.ofSeconds(30), time);
        IMap<String, String> counters = member.getMap(map);

        store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0));
        // One token refills in 6 s: whole seconds, plus one for Hazelcast's truncation.
        assertThat(counters.getEntryView("k").getTtl()).isEqualTo(7_000);

        store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0));
        EntryView<String, String> replaced = counters.getEntryView("k");
        assertThat(replaced.getTtl()).as("a replace resets the TTL; the store sets it again").isEqualTo(13_000);
        assertThat(replaced.getExpirationTime()).isLessThan(Long.MAX_VALUE);

        store.execute("k", Command.decide(TEN_PER_MINUTE, 8, 0));
        store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0));
        assertThat(counters.getEntryView("k").getTtl()).as("a rejection writes nothing").isEqualTo(61_000);
    }

    @Test
    void decide_keyChangedBetweenReadAndWrite_decidesAgainOnTheNewValue() {
        String map = newMapName();
        CompareAndSetCounterStore other = new CompareAndSetCounterStore(member, map, Duration.ofSeconds(30), time);
        InterferingClock clock = new InterferingClock(() -> other.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0)));
        CompareAndSetCounterStore store = new CompareAndSetCounterStore(member, map, Duration.ofSeconds(30), clock);
        store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0));

        clock.interfere(1);
        Decision decision = store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0));

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.remaining()).as("decided on the other caller's write").isEqualTo(7);
        assertThat(store.execute("k", Command.peek(TEN_PER_MINUTE, 0)).remaining()).isEqualTo(7);
    }

    @Test
    void decide_keyChangedBeforeEveryWrite_givesUpAfterTheRetryTimeoutAndCountsNothing() {
        String map = newMapName();
        CompareAndSetCounterStore other = new CompareAndSetCounterStore(member, map, Duration.ofSeconds(30), time);
        InterferingClock clock = new InterferingClock(() -> other.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0)));
        CompareAndSetCounterStore store = new CompareAndSetCounterStore(member, map, Duration.ZERO, clock);
        store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0));

        clock.interfere(Integer.MAX_VALUE);
        assertThatThrownBy(() -> store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0)))
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessage("gave up a decision on map \"" + map + "\" after 1 attempts, past the retry timeout of 0 "
                        + "ms: other callers changed the key before each write; nothing was counted");

        FailurePolicyStore rejecting = FailurePolicyStore.rejecting(store, Duration.ofSeconds(30));
        assertThat(rejecting.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0)).allowed()).isFalse();
        assertThat(rejecting.failures()).isEqualTo(1);

        clock.interfere(0);
        // 10 - 1 (first grant) - 2 (the other caller's writes); the two given-up decisions counted nothing.
        assertThat(store.execute("k", Command.peek(TEN_PER_MINUTE, 0)).remaining()).isEqualTo(7);
    }

    @Test
    void decide_valueOfAnotherFormat_isRefusedAndLeftAlone() {
        String map = newMapName();
        IMap<String, String> counters = member.getMap(map);
        counters.put("k", "2;whatever a newer writer wrote");
        CompareAndSetCounterStore store = new CompareAndSetCounterStore(member, map, Duration.ofSeconds(30), time);

        assertThatThrownBy(() -> store.execute("k", Command.decide(TEN_PER_MINUTE, 1,
                0))).isInstanceOf(IllegalStateException.class);
        assertThat(counters.get("k")).isEqualTo("2;whatever a newer writer wrote");
    }

    /**
     * Hazelcast's replace compares an {@code OBJECT} map's values with {@code equals}: arrays never match a copy,
     * strings match by content. Hence the store's string values; in a {@code BINARY} map both match.
     */
    @Test
    void replace_copyOfTheValueInAnObjectFormatMap_matchesStringsButNotArrays() {
        String objectMap = newMapName();
        member.getConfig().addMapConfig(new MapConfig(objectMap).setInMemoryFormat(InMemoryFormat.OBJECT));
        IMap<String, Object> objects = member.getMap(objectMap);
        IMap<String, Object> binary = member.getMap(newMapName());
        for (IMap<String, Object> map : List.of(objects, binary)) {
            map.put("bytes", new byte[] {1, 2});
            map.put("string", "1;2");
        }

        assertThat(objects.replace("bytes", new byte[] {1, 2}, new byte[] {3})).isFalse();
        assertThat(objects.replace("string", new String("1;2"), "1;3")).isTrue();
        assertThat(binary.replace("bytes", new byte[] {1, 2}, new byte[] {3})).isTrue();
        assertThat(binary.replace("string", new String("1;2"), "1;3")).isTrue();
    }

    @Test
    void decide_objectFormatMap_admitsExactlyTheLimit() {
        String map = newMapName();
        member.getConfig().addMapConfig(new MapConfig(map).setInMemoryFormat(InMemoryFormat.OBJECT));
        CompareAndSetCounterStore store = new CompareAndSetCounterStore(member, map, Duration.ofSeconds(30), time);

        for (int i = 0; i < 10; i++) {
            assertThat(store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0)).allowed()).as("permit %d",
                    i + 1).isTrue();
        }
        assertThat(store.execute("k", Command.decide(TEN_PER_MINUTE, 1, 0)).allowed()).isFalse();
    }

    private String newMapName() {
        return "cas-" + maps.incrementAndGet();
    }

    /** The test's manual time, whose reading first runs an interfering write, as many times as armed. */
    private final class InterferingClock implements TimeSource {
        private final Runnable write;
        private final AtomicInteger armed = new AtomicInteger();

        InterferingClock(Runnable write) {
            this.write = write;
        }

        void interfere(int times) {
            armed.set(times);
        }

        @Override
        public long nanos() {
            if (armed.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                write.run();
            }
            return time.nanos();
        }
    }
}
