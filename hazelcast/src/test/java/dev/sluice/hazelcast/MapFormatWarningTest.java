package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.TimeSource;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A member whose own configuration keeps one of Sluice's maps in another in-memory format than {@code OBJECT} (here a
 * wildcard for the synchronised keys' shards in {@code BINARY}): its store starts, and says at WARNING and in its
 * health which map, in which format, by which configuration; a member with Sluice's configuration says nothing of the
 * kind; a store on an instance whose own configuration of the counters map stands says so too.
 */
@Tag("cluster")
class MapFormatWarningTest {

    private static final Logger STORE_LOG = Logger.getLogger(HazelcastCounterStore.class.getName());

    private final Queue<String> warnings = new ConcurrentLinkedQueue<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                warnings.add(new SimpleFormatter().formatMessage(record));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureWarnings() {
        STORE_LOG.addHandler(capture);
    }

    @AfterEach
    void stopCapture() {
        STORE_LOG.removeHandler(capture);
    }

    /** A client finds the same again on each reconnection: said and kept once. */
    @Test
    void found_sameWarningTwice_isLoggedAndKeptOnce() {
        MapWarnings found = new MapWarnings(System.getLogger(HazelcastCounterStore.class.getName()));

        found.found("map 'a' in BINARY");
        found.found("map 'b' in BINARY");
        found.found("map 'a' in BINARY");

        assertThat(warnings).containsExactly("map 'a' in BINARY", "map 'b' in BINARY");
        assertThat(found.now()).containsExactly("map 'a' in BINARY", "map 'b' in BINARY");
    }

    @Test
    void startMember_shardsMapKeptInBinaryByAWildcard_warnsInLogAndHealthNamingTheMapFormatAndConfiguration() {
        int port = ClusterSupport.freePort();
        Config config = ClusterSupport.member(ClusterSupport.newClusterName(), port, List.of(port)).build().toConfig();
        config.getMapConfigs().remove("synced-" + StoreOptions.DEFAULT_MAP_NAME);
        config.addMapConfig(new MapConfig("synced-*").setInMemoryFormat(InMemoryFormat.BINARY));

        HazelcastCounterStore member = HazelcastCounterStore.startMember(MemberOptions.builder().config(config)
                .build());
        try {
            assertThat(warnings).filteredOn(warning -> warning.contains("in-memory format")).singleElement()
                    .asString().contains("'synced-sluice-counters'", "BINARY", "'synced-*'", "OBJECT")
                    .doesNotContain("'sluice-counters'");
            assertThat(member.services().health().cluster().mapWarnings()).singleElement().asString()
                    .contains("'synced-sluice-counters'", "BINARY", "'synced-*'", "OBJECT");
        } finally {
            member.close();
        }
    }

    @Test
    void using_memberWithItsOwnCountersMapConfiguration_warnsInLogAndHealthThatItStandsAndOfItsFormat() {
        int port = ClusterSupport.freePort();
        Config config = ClusterSupport.member(ClusterSupport.newClusterName(), port, List.of(port)).build().toConfig();
        config.getMapConfigs().remove(StoreOptions.DEFAULT_MAP_NAME);
        config.addMapConfig(new MapConfig(StoreOptions.DEFAULT_MAP_NAME).setInMemoryFormat(InMemoryFormat.BINARY));
        HazelcastInstance instance = Hazelcast.newHazelcastInstance(config);
        try (HazelcastCounterStore store = HazelcastCounterStore.using(instance)) {
            List<String> inHealth = store.services().health().cluster().mapWarnings();

            assertThat(inHealth).hasSize(2).anySatisfy(warning -> assertThat(warning)
                    .contains("own configuration of map 'sluice-counters'", "stands instead of Sluice's"))
                    .anySatisfy(warning -> assertThat(warning)
                            .contains("map 'sluice-counters' in in-memory format BINARY", "not OBJECT"));
            assertThat(warnings).containsAll(inHealth);
        } finally {
            instance.shutdown();
        }
    }

    @Test
    void startMember_sluicesOwnMapConfiguration_warnsOfNoFormat() {
        List<HazelcastCounterStore> members = ClusterSupport.startCluster(1, TimeSource.system());
        try {
            assertThat(warnings).noneMatch(warning -> warning.contains("in-memory format"));
            assertThat(members).allSatisfy(member -> assertThat(member.services().health().cluster().mapWarnings())
                    .isEmpty());
        } finally {
            ClusterSupport.closeAll(members);
        }
    }
}
