package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ManualTimeSource;
import dev.sluice.TimeSource;
import dev.sluice.store.CounterStoreProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code hazelcast} and {@code hazelcast-client} providers: found by name, reading their init-params. */
class StoreProvidersTest {

    private static CounterStoreProvider.Context context(Map<String, String> initParams) {
        return new CounterStoreProvider.Context(initParams::get, "/shop", TimeSource.system());
    }

    @Test
    void serviceLoader_findsBothProvidersByName() {
        List<String> names = ServiceLoader.load(CounterStoreProvider.class).stream()
                .map(provider -> provider.get().name()).toList();
        assertThat(names).contains("hazelcast", "hazelcast-client");
    }

    @Test
    void settingNames_everyInitParamTheProvidersRead_andNoOther() {
        Set<String> read = new LinkedHashSet<>();
        CounterStoreProvider.Context recording = new CounterStoreProvider.Context(name -> {
            read.add(name);
            return null;
        }, "/", TimeSource.system());
        InitParams.member(recording);
        InitParams.client(recording);

        assertThat(new HazelcastMemberStoreProvider().settingNames()).contains(read);
        assertThat(new HazelcastClientStoreProvider().settingNames()).contains(read);
    }

    @Test
    void member_simpleInitParams_becomeOptions() {
        MemberOptions options = InitParams.member(context(Map.of("hazelcast-cluster-name", "c",
                "hazelcast-members", "127.0.0.1:6001, 127.0.0.1:6002", "hazelcast-port", "6001")));

        assertThat(options.clusterName()).isEqualTo("c");
        assertThat(options.members()).containsExactly("127.0.0.1:6001", "127.0.0.1:6002");
        assertThat(options.port()).isEqualTo(6001);
        assertThat(options.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(options.store().mapName()).isEqualTo("sluice-counters/shop");
        assertThat(options.timeSource()).as("the system time: Hazelcast's cluster time decides").isNull();
    }

    @Test
    void member_noInitParams_takesTheOptionsDefaultsOnLoopback() {
        MemberOptions options = InitParams.member(new CounterStoreProvider.Context(name -> null, "/",
                TimeSource.system()));

        assertThat(options.clusterName()).isEqualTo(MemberOptions.DEFAULT_CLUSTER_NAME);
        assertThat(options.port()).isEqualTo(MemberOptions.DEFAULT_PORT);
        assertThat(options.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(options.members()).isEmpty();
        assertThat(options.store().mapName()).isEqualTo(HazelcastCounterStore.DEFAULT_MAP_NAME);
    }

    @Test
    void member_manualTimeSource_becomesTheMembersTime() {
        ManualTimeSource time = new ManualTimeSource();
        MemberOptions options = InitParams.member(new CounterStoreProvider.Context(name -> null, "/", time));

        assertThat(options.timeSource()).isSameAs(time);
    }

    @Test
    void member_portOutOfRange_namesTheInitParamAndTheExpectedForm() {
        assertThatThrownBy(() -> new HazelcastMemberStoreProvider().open(context(Map.of("hazelcast-port", "70000"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("init-param 'hazelcast-port': expected a port from 1 to 65535, got '70000'");
    }

    @Test
    void member_batchingInitParam_turnsBatchingOffOrOn() {
        assertThat(InitParams.member(context(Map.of("hazelcast-batching", "false"))).store().batching()).isFalse();
        assertThat(InitParams.member(context(Map.of("hazelcast-batching", "true"))).store().batching()).isTrue();
        assertThat(InitParams.member(context(Map.of())).store().batching()).isTrue();
    }

    @Test
    void leasingInitParam_turnsLeasingOnForMemberAndClient_offByDefault() {
        assertThat(InitParams.member(context(Map.of())).store().leasing()).isFalse();
        assertThat(InitParams.member(context(Map.of("hazelcast-leasing", "true"))).store().leasing()).isTrue();
        assertThat(InitParams.client(context(Map.of("hazelcast-leasing", "true"))).store().leasing()).isTrue();
        assertThatThrownBy(() -> InitParams.member(context(Map.of("hazelcast-leasing", "on"))))
                .hasMessage("init-param 'hazelcast-leasing': expected true or false, got 'on'");
    }

    @Test
    void leaseTuningInitParams_setLifetimeSliceAndHotKeyRate() {
        StoreOptions store = InitParams.member(context(Map.of("hazelcast-lease-lifetime", "20ms",
                "hazelcast-max-slice", "256", "hazelcast-hot-key-rate", "50"))).store();

        assertThat(store.leaseLifetime()).isEqualTo(Duration.ofMillis(20));
        assertThat(store.maxSlice()).isEqualTo(256);
        assertThat(store.hotKeyRate()).isEqualTo(50);
    }

    @Test
    void syncInterval_setAndDefault_areTheStoresInterval() {
        assertThat(InitParams.client(context(Map.of("hazelcast-sync-interval", "50ms"))).store().syncInterval())
                .isEqualTo(Duration.ofMillis(50));
        assertThat(InitParams.member(context(Map.of())).store().syncInterval()).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void clientGrace_setDefaultAndTooShort_isTheStoresGraceOrNamesTheInitParam() {
        assertThat(InitParams.member(context(Map.of("hazelcast-client-grace", "5s"))).store().clientGrace())
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(InitParams.member(context(Map.of())).store().clientGrace()).isEqualTo(Duration.ofSeconds(30));
        assertThatThrownBy(() -> InitParams.member(context(Map.of("hazelcast-client-grace", "0s"))))
                .hasMessageContaining("hazelcast-client-grace");
    }

    @Test
    void syncBudgetAndMaxSyncedKeys_setAndDefault_areTheStores() {
        StoreOptions given = InitParams.member(context(Map.of("hazelcast-sync-budget", "7",
                "hazelcast-max-synced-keys", "500"))).store();
        StoreOptions defaults = InitParams.client(context(Map.of("hazelcast-sync-budget", "auto"))).store();

        assertThat(given.syncBudget()).hasValue(7);
        assertThat(given.maxSyncedKeys()).isEqualTo(500);
        assertThat(defaults.syncBudget()).isEmpty();
        assertThat(defaults.maxSyncedKeys()).isEqualTo(StoreOptions.DEFAULT_MAX_SYNCED_KEYS);
        assertThatThrownBy(() -> InitParams.member(context(Map.of("hazelcast-sync-budget", "-1"))))
                .hasMessage("init-param 'hazelcast-sync-budget': expected auto, or a number of permits, 0 or more,"
                        + " got '-1'");
    }

    @Test
    void keySecret_givenOrInAFile_isTheStoresAndNeverQuotedWhenRefused(@TempDir Path dir) throws Exception {
        String secret = "one secret for every instance";
        Path file = Files.writeString(dir.resolve("key-secret"), secret + "\n");
        StoreOptions given = InitParams.member(context(Map.of("hazelcast-key-secret", secret))).store();
        StoreOptions fromFile = InitParams.client(context(Map.of("hazelcast-key-secret", "file:" + file))).store();

        assertThat(given.keySecret().configured()).isTrue();
        assertThat(fromFile.keySecret().fingerprint()).as("the file's text, trimmed")
                .isEqualTo(given.keySecret().fingerprint());
        assertThat(InitParams.member(context(Map.of())).store().keySecret().configured()).isFalse();
        assertThat(given.toString()).contains("keySecret=configured").doesNotContain(secret);
        assertThatThrownBy(() -> InitParams.member(context(Map.of("hazelcast-key-secret", "too short"))))
                .hasMessage("init-param 'hazelcast-key-secret': expected a secret of at least 16 characters, or"
                        + " file: and a file holding one; got 9 characters");
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> InitParams.member(context(Map.of("hazelcast-key-secret", "file:" + missing))))
                .hasMessage("init-param 'hazelcast-key-secret': cannot read the file " + missing
                        + " (NoSuchFileException)");
    }

    @Test
    void syncIntervalOutOfRange_namesTheInitParamAndTheRange() {
        assertThatThrownBy(() -> InitParams.member(context(Map.of("hazelcast-sync-interval", "2s"))))
                .hasMessage("init-param 'hazelcast-sync-interval': expected a duration from 1ms to 1000ms, got '2s'")
                .cause().hasMessage("syncInterval must be from 1ms to 1000ms, got PT2S");
    }

    @Test
    void leaseTuningInitParamsOutOfRange_nameTheInitParamAndTheRange() {
        assertThatThrownBy(() -> InitParams.member(context(Map.of("hazelcast-lease-lifetime", "1s"))))
                .hasMessage("init-param 'hazelcast-lease-lifetime': expected a duration from 1ms to 50ms, got '1s'")
                .cause().hasMessage("leaseLifetime must be from 1ms to 50ms, got PT1S");
        assertThatThrownBy(() -> InitParams.client(context(Map.of("hazelcast-max-slice", "1"))))
                .hasMessage("init-param 'hazelcast-max-slice': expected a number of permits from 2 to 1000000, got"
                        + " '1'");
        assertThatThrownBy(() -> InitParams.member(context(Map.of("hazelcast-hot-key-rate", "fast"))))
                .hasMessage("init-param 'hazelcast-hot-key-rate': expected a number of permits per second, at least"
                        + " 1, got 'fast'");
    }

    @Test
    void member_batchingInitParamNeitherTrueNorFalse_namesTheInitParamAndTheExpectedForm() {
        assertThatThrownBy(() -> InitParams.member(context(Map.of("hazelcast-batching", "yes"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("init-param 'hazelcast-batching': expected true or false, got 'yes'");
    }

    @Test
    void member_configFileWithSimpleInitParams_isRefused() {
        assertThatThrownBy(() -> InitParams.member(context(Map.of("hazelcast-config", "hazelcast.yaml",
                "hazelcast-port", "5702", "hazelcast-interface", "127.0.0.1"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("init-param hazelcast-port, hazelcast-interface cannot be used with hazelcast-config, "
                        + "which sets them itself");
    }

    @Test
    void member_configFile_isUsedAlone() {
        MemberOptions options = InitParams.member(context(Map.of("hazelcast-config", "conf/hazelcast.yaml")));

        assertThat(options.configFile()).isEqualTo(Path.of("conf/hazelcast.yaml"));
    }

    @Test
    void client_memberOnlyInitParams_areRefused() {
        assertThatThrownBy(() -> InitParams.client(context(Map.of("hazelcast-port", "5702"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("init-param hazelcast-port cannot be used with store 'hazelcast-client'");
    }

    @Test
    void client_simpleInitParams_becomeOptions() {
        ClientOptions options = InitParams.client(context(Map.of("hazelcast-cluster-name", "c",
                "hazelcast-members", "10.0.0.1:5701")));

        assertThat(options.clusterName()).isEqualTo("c");
        assertThat(options.members()).containsExactly("10.0.0.1:5701");
        assertThat(options.store().mapName()).isEqualTo("sluice-counters/shop");
    }
}
