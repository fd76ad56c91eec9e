package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
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
 * wildcard for the synchronised keys' shards in {@code BINARY}): its store starts, and says at WARNING which map, in
 * which format, by which configuration; a member with Sluice's configuration says nothing of the kind.
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

    @Test
    void startMember_shardsMapKeptInBinaryByAWildcard_warnsNamingTheMapFormatAndConfiguration() {
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
        } finally {
            member.close();
        }
    }

    @Test
    void startMember_sluicesOwnMapConfiguration_warnsOfNoFormat() {
        List<HazelcastCounterStore> members = ClusterSupport.startCluster(1, TimeSource.system());
        try {
            assertThat(warnings).noneMatch(warning -> warning.contains("in-memory format"));
        } finally {
            ClusterSupport.closeAll(members);
        }
    }
}
