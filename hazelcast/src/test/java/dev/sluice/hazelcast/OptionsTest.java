package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.Config;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The entry points' options refuse every value and combination they cannot start, naming the option. */
class OptionsTest {

    @Test
    void memberOptions_portOutsideRange_isRefused() {
        assertThatThrownBy(() -> MemberOptions.builder().port(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("port must be from 1 to 65535, got 0");
        assertThatThrownBy(() -> MemberOptions.builder().port(65_536))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("port must be from 1 to 65535, got 65536");
        assertThat(MemberOptions.builder().port(65_535).build().port()).isEqualTo(65_535);
    }

    @Test
    void memberOptions_blankNames_areRefused() {
        assertThatThrownBy(() -> MemberOptions.builder().clusterName(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("clusterName must be a non-empty name without spaces, got ' '");
        assertThatThrownBy(() -> MemberOptions.builder().bindAddress(""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("bindAddress must be");
    }

    @Test
    void memberOptions_memberWithBadPort_isRefused() {
        assertThatThrownBy(() -> MemberOptions.builder().members("127.0.0.1:5701", "127.0.0.1:99999"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("members: '127.0.0.1:99999' is not host or host:port with a port from 1 to 65535");
        assertThatThrownBy(() -> ClientOptions.builder().members("host:"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("members: 'host:'");
        assertThat(MemberOptions.builder().bindAddress("10.0.0.2").members("10.0.0.1", "[::1]:5702").build()
                .members()).containsExactly("10.0.0.1", "[::1]:5702");
    }

    @Test
    void memberOptions_membersElsewhereWithTheDefaultBindAddress_isRefusedNamingTheSetting() {
        assertThatThrownBy(() -> MemberOptions.builder().members("127.0.0.1:5701", "10.0.0.12:5701",
                "[2001:db8::1]:5701", "member-3").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("members 10.0.0.12:5701, [2001:db8::1]:5701, member-3 are not on this machine, but the"
                        + " member binds to 127.0.0.1 (bindAddress, init-param hazelcast-interface; default"
                        + " 127.0.0.1), which they cannot reach: set it to this machine's address on the network"
                        + " they share");
        assertThat(MemberOptions.builder().members("127.0.0.1:5701", "localhost:5702", "[::1]:5703").build()
                .members()).as("on this machine").hasSize(3);
        assertThat(MemberOptions.builder().bindAddress("10.0.0.11").members("10.0.0.12:5701").build().members())
                .as("bound to the network they share").containsExactly("10.0.0.12:5701");
    }

    @Test
    void memberOptions_configFileWithSimpleSettings_isRefused() {
        assertThatThrownBy(() -> MemberOptions.builder().configFile(Path.of("hazelcast.yaml")).port(5702)
                .members("127.0.0.1").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("configFile given together with port, members: the configuration sets these itself");
        assertThatThrownBy(() -> MemberOptions.builder().config(new Config()).clusterName("c").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("config given together with clusterName: the configuration sets these itself");
    }

    @Test
    void memberOptions_configFileAndConfig_isRefused() {
        assertThatThrownBy(() -> MemberOptions.builder().configFile(Path.of("hazelcast.yaml")).config(new Config())
                .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("configFile and config both given: give one configuration");
    }

    @Test
    void memberOptions_toConfig_carriesSimpleSettingsAndTheCountersMap() {
        Config config = MemberOptions.builder().clusterName("c").port(6000).bindAddress("127.0.0.1")
                .store(StoreOptions.builder().mapName("m").backupCount(2).maxKeysPerMember(10).build())
                .property("hazelcast.partition.count", "7").build().toConfig();

        assertThat(config.getClusterName()).isEqualTo("c");
        assertThat(config.getNetworkConfig().getPort()).isEqualTo(6000);
        assertThat(config.getNetworkConfig().getJoin().getTcpIpConfig().getMembers()).containsExactly("127.0.0.1");
        assertThat(config.getMapConfig("m").getBackupCount()).isEqualTo(2);
        assertThat(config.getMapConfig("m").getEvictionConfig().getSize()).isEqualTo(10);
        assertThat(config.getProperty("hazelcast.partition.count")).isEqualTo("7");
        assertThat(config.getSerializationConfig().getJavaSerializationFilterConfig()).isNotNull();
    }

    @Test
    void memberOptions_defaults_areTheDocumentedOnes() {
        MemberOptions options = MemberOptions.builder().build();
        assertThat(options.clusterName()).isEqualTo(MemberOptions.DEFAULT_CLUSTER_NAME).isEqualTo("sluice");
        assertThat(options.bindAddress()).isEqualTo(MemberOptions.DEFAULT_BIND_ADDRESS).isEqualTo("127.0.0.1");
        Config config = options.toConfig();
        assertThat(config.getNetworkConfig().getInterfaces().getInterfaces()).containsExactly("127.0.0.1");
        assertThat(config.getProperty("hazelcast.socket.bind.any")).isEqualTo("false");
        assertThat(options.store().keySecret().configured()).as("no key secret unless given").isFalse();
        assertThat(options.port()).isEqualTo(MemberOptions.DEFAULT_PORT).isEqualTo(5701);
        assertThat(options.store().mapName()).isEqualTo(HazelcastCounterStore.DEFAULT_MAP_NAME);
        assertThat(options.store().backupCount()).isEqualTo(1);
        assertThat(options.store().maxKeysPerMember()).isEqualTo(1_000_000);
    }

    @Test
    void storeOptions_backupCountOutsideZeroToSix_isRefused() {
        assertThatThrownBy(() -> StoreOptions.builder().backupCount(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backupCount must be from 0 to 6, got -1");
        assertThatThrownBy(() -> StoreOptions.builder().backupCount(7))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backupCount must be from 0 to 6, got 7");
        assertThat(StoreOptions.builder().backupCount(0).build().backupCount()).isZero();
        assertThat(StoreOptions.builder().backupCount(6).build().backupCount()).isEqualTo(6);
    }

    @Test
    void storeOptions_maxKeysPerMemberBelowOne_isRefused() {
        assertThatThrownBy(() -> StoreOptions.builder().maxKeysPerMember(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxKeysPerMember must be at least 1, got 0");
    }

    @Test
    void storeOptions_leaseSettingsOutsideTheirRanges_areRefused() {
        StoreOptions.Builder builder = StoreOptions.builder();
        assertThatThrownBy(() -> builder.leaseLifetime(Duration.ofMillis(51)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseLifetime must be from 1ms to 50ms");
        assertThatThrownBy(() -> builder.leaseLifetime(Duration.ofNanos(999_999)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.maxSlice(1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.hotKeyRate(0)).isInstanceOf(IllegalArgumentException.class);
        StoreOptions defaults = StoreOptions.defaults();
        assertThat(defaults.leasing()).isFalse();
        assertThat(defaults.leaseLifetime()).isEqualTo(Duration.ofMillis(10));
        assertThat(defaults.maxSlice()).isEqualTo(64);
        assertThat(defaults.hotKeyRate()).isEqualTo(1_000);
    }

    @Test
    void storeOptions_blankMapName_isRefused() {
        assertThatThrownBy(() -> StoreOptions.builder().mapName(""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("mapName must be");
    }

    @Test
    void clientOptions_negativeStartWait_isRefused() {
        assertThatThrownBy(() -> ClientOptions.builder().startWait(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("startWait must not be negative, got PT-0.001S");
        assertThat(ClientOptions.builder().build().startWait()).isEqualTo(ClientOptions.DEFAULT_START_WAIT);
    }

    @Test
    void clientOptions_configFileWithSimpleSettings_isRefused() {
        assertThatThrownBy(() -> ClientOptions.builder().clusterName("c").configFile(Path.of("client.yaml")).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("configFile given together with clusterName: the configuration sets these itself");
    }
}
