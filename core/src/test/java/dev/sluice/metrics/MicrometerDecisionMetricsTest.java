package dev.sluice.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.StoreHealth;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MicrometerDecisionMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerDecisionMetrics metrics = new MicrometerDecisionMetrics(registry);

    @Test
    void taken_andReleased_gaugeThePermitsHeldPerRule() {
        metrics.taken("exports");
        metrics.taken("exports");
        metrics.taken("imports");
        metrics.released("exports");

        assertThat(registry.get(MicrometerDecisionMetrics.PERMITS_HELD).tag("rule", "exports").gauge().value())
                .isEqualTo(1);
        assertThat(registry.get(MicrometerDecisionMetrics.PERMITS_HELD).tag("rule", "imports").gauge().value())
                .isEqualTo(1);
    }

    @Test
    void reservedAndSettled_countUnitsPerRuleAndUnit_theDebtBeyondTheEstimates() {
        metrics.reserved("llm", "tokens", 40);
        metrics.reserved("llm", "tokens", 30);
        metrics.settled("llm", "tokens", 40, 10);
        metrics.settled("llm", "tokens", 30, 45);
        metrics.reserved("llm", "tokens", 20);

        assertThat(cost(MicrometerDecisionMetrics.COST_RESERVED)).isEqualTo(90);
        assertThat(cost(MicrometerDecisionMetrics.COST_SETTLED)).isEqualTo(55);
        assertThat(cost(MicrometerDecisionMetrics.COST_DEBT)).isEqualTo(15);
        assertThat(registry.get(MicrometerDecisionMetrics.COST_OUTSTANDING).tags("rule", "llm", "unit", "tokens")
                .gauge().value()).isEqualTo(20);
    }

    private double cost(String name) {
        return registry.get(name).tags("rule", "llm", "unit", "tokens").counter().count();
    }

    @Test
    void waitStarted_countsTheRulesWaits() {
        metrics.waitStarted("exports");
        metrics.waitStarted("exports");

        assertThat(registry.get(MicrometerDecisionMetrics.WAITS_STARTED).tag("rule", "exports").counter().count())
                .isEqualTo(2);
    }

    @Test
    void waitGranted_countsTheRulesWaitsThatGotAPermit() {
        metrics.waitGranted("exports");

        assertThat(registry.get(MicrometerDecisionMetrics.WAITS_GRANTED).tag("rule", "exports").counter().count())
                .isEqualTo(1);
        assertThat(registry.find(MicrometerDecisionMetrics.WAITS_TIMED_OUT).counter()).isNull();
    }

    @Test
    void waitTimedOut_countsTheRulesWaitsInVain() {
        metrics.waitTimedOut("exports");
        metrics.waitTimedOut("imports");

        assertThat(registry.get(MicrometerDecisionMetrics.WAITS_TIMED_OUT).tag("rule", "exports").counter().count())
                .isEqualTo(1);
        assertThat(registry.get(MicrometerDecisionMetrics.WAITS_TIMED_OUT).counters()).hasSize(2);
    }

    @Test
    void watch_closed_removesItsGaugesOnce() {
        DecisionMetrics.Watch watch = metrics.watch(() -> health(3));
        assertThat(storeGauges()).hasSize(11);

        watch.close();
        watch.close();

        assertThat(storeGauges()).isEmpty();
    }

    @Test
    void watch_laterWatchOfTheSameMode_publishesItsStoreAndOutlivesTheEarlierOnesClose() {
        DecisionMetrics.Watch earlier = metrics.watch(() -> health(1));
        DecisionMetrics.Watch later = metrics.watch(() -> health(2));

        earlier.close();

        assertThat(storeGauges()).hasSize(11);
        assertThat(registry.get(MicrometerDecisionMetrics.STORE + ".failed").tag("mode", "test").gauge().value())
                .isEqualTo(2);
        later.close();
        assertThat(storeGauges()).isEmpty();
    }

    @Test
    void watch_leasingStore_publishesItsLeasedGrantsAndHeldPermits() {
        StoreHealth[] now = {shared("leasing", 2, leasing(1_000, 24))};
        DecisionMetrics.Watch watch = metrics.watch(() -> now[0]);
        now[0] = shared("leasing", 2, leasing(1_500, 12));

        assertThat(registry.get(MicrometerDecisionMetrics.STORE + ".lease.grants").tag("mode", "leasing")
                .functionCounter().count()).isEqualTo(1_500);
        assertThat(registry.get(MicrometerDecisionMetrics.STORE + ".lease.held").tag("mode", "leasing").gauge()
                .value()).isEqualTo(12);
        watch.close();
    }

    @Test
    void watch_storeWithSynchronisedHitsWaiting_publishesThemAndTheLag() {
        StoreHealth[] now = {shared("cluster", 2, StoreHealth.Cluster.NONE)};
        DecisionMetrics.Watch watch = metrics.watch(() -> now[0]);
        now[0] = shared("cluster", 2, new StoreHealth.Cluster(0, 0, List.of(), StoreHealth.Leasing.NONE,
                new StoreHealth.Synchronised(42, 30_000_000, Map.of())));

        assertThat(registry.get(MicrometerDecisionMetrics.STORE + ".sync.waiting").tag("mode", "cluster").gauge()
                .value()).isEqualTo(42);
        assertThat(registry.get(MicrometerDecisionMetrics.STORE + ".sync.lag").tag("mode", "cluster").gauge()
                .value()).isEqualTo(0.03);
        watch.close();
        assertThat(storeGauges()).isEmpty();
    }

    @Test
    void watch_storeThatFoundIncompatibleMembers_publishesHowMany() {
        StoreHealth[] now = {shared("cluster", 2, StoreHealth.Cluster.NONE)};
        DecisionMetrics.Watch watch = metrics.watch(() -> now[0]);
        now[0] = shared("cluster", 3,
                new StoreHealth.Cluster(1, 0, List.of(), StoreHealth.Leasing.NONE, StoreHealth.Synchronised.NONE));

        assertThat(registry.get(MicrometerDecisionMetrics.STORE + ".incompatible.members").tag("mode", "cluster")
                .functionCounter().count()).isEqualTo(1);
        watch.close();
        assertThat(storeGauges()).isEmpty();
    }

    @Test
    void watch_storeThatFreedPermitsOfGoneNodes_publishesHowMany() {
        StoreHealth[] now = {shared("cluster", 3, StoreHealth.Cluster.NONE)};
        DecisionMetrics.Watch watch = metrics.watch(() -> now[0]);
        now[0] = shared("cluster", 2,
                new StoreHealth.Cluster(0, 4, List.of(), StoreHealth.Leasing.NONE, StoreHealth.Synchronised.NONE));

        assertThat(registry.get(MicrometerDecisionMetrics.STORE + ".permits.freed").tag("mode", "cluster")
                .functionCounter().count()).isEqualTo(4);
        watch.close();
        assertThat(storeGauges()).isEmpty();
    }

    @Test
    void watch_storeWarningOfItsMapsConfiguration_publishesHowManyWarnings() {
        StoreHealth[] now = {shared("cluster", 2, StoreHealth.Cluster.NONE)};
        DecisionMetrics.Watch watch = metrics.watch(() -> now[0]);
        assertThat(registry.get(MicrometerDecisionMetrics.STORE + ".map.warnings").tag("mode", "cluster").gauge()
                .value()).isZero();

        now[0] = shared("cluster", 2, new StoreHealth.Cluster(0, 0, List.of("map 'a' in BINARY", "map 'b' in BINARY"),
                StoreHealth.Leasing.NONE, StoreHealth.Synchronised.NONE));

        assertThat(registry.get(MicrometerDecisionMetrics.STORE + ".map.warnings").tag("mode", "cluster").gauge()
                .value()).isEqualTo(2);
        watch.close();
        assertThat(storeGauges()).isEmpty();
    }

    @Test
    void recorded_ruleOfAStoreWhoseOwnersFoundItsHitsOverTheLimit_countsThemUnderTheRule() {
        StoreHealth[] now = {shared("cluster", 2, StoreHealth.Cluster.NONE)};
        DecisionMetrics.Watch watch = metrics.watch(() -> now[0]);
        try (LocalCounterStore store = new LocalCounterStore()) {
            metrics.recorded(ReloadingRuleSet.builder().content("rules.json", """
                    {"rules": [{"id": "per-ip", "match": {"paths": ["/**"]}, "key": {"type": "ip"},
                                "limits": [{"permits": 5, "period": "1m"}]}]}
                    """.getBytes(StandardCharsets.UTF_8)).build().get().evaluate(TestRequest.get("/x"), store), 1);
        }
        assertThat(registry.get(MicrometerDecisionMetrics.SYNC_OVER_ADMITTED).tag("rule", "per-ip")
                .functionCounter().count()).isZero();

        now[0] = shared("cluster", 2, new StoreHealth.Cluster(0, 0, List.of(), StoreHealth.Leasing.NONE,
                new StoreHealth.Synchronised(0, 0, Map.of("per-ip", 7L))));

        assertThat(registry.get(MicrometerDecisionMetrics.SYNC_OVER_ADMITTED).tag("rule", "per-ip")
                .functionCounter().count()).isEqualTo(7);
        watch.close();
    }

    @Test
    void recorded_rulesReloaded_aKeptRuleCountsOnAndANewRuleGetsItsOwnCounters() {
        String before = """
                {"rules": [{"id": "per-ip", "match": {"paths": ["/**"]}, "key": {"type": "ip"},
                            "limits": [{"permits": 5, "period": "1m"}]}]}
                """;
        String after = """
                {"rules": [{"id": "per-ip", "match": {"paths": ["/**"]}, "key": {"type": "ip"},
                            "limits": [{"permits": 5, "period": "1m"}]},
                           {"id": "per-ip-burst", "match": {"paths": ["/**"]}, "key": {"type": "ip"},
                            "limits": [{"permits": 9, "period": "1m"}]}]}
                """;
        try (LocalCounterStore store = new LocalCounterStore()) {
            recordOne(before, store);
            recordOne(before, store);
            recordOne(after, store);
        }

        assertThat(decisions("per-ip", Outcome.ALLOWED)).isEqualTo(3);
        assertThat(decisions("per-ip-burst", Outcome.ALLOWED)).isEqualTo(1);
    }

    private void recordOne(String rules, LocalCounterStore store) {
        metrics.recorded(ReloadingRuleSet.builder().content("rules.json", rules.getBytes(StandardCharsets.UTF_8))
                .build().get().evaluate(TestRequest.get("/x"), store), 1);
    }

    private double decisions(String ruleId, Outcome outcome) {
        return registry.get(MicrometerDecisionMetrics.DECISIONS).tags("rule", ruleId, "outcome", outcome.tag())
                .counter().count();
    }

    private static StoreHealth health(long failed) {
        return new StoreHealth("test", 0, new StoreHealth.Failures(failed, 0, 0), StoreHealth.Cluster.NONE);
    }

    /** The figures of a leasing store that granted {@code grants} from slices and holds {@code held} permits. */
    private static StoreHealth.Cluster leasing(long grants, long held) {
        return new StoreHealth.Cluster(0, 0, List.of(), new StoreHealth.Leasing(grants, held),
                StoreHealth.Synchronised.NONE);
    }

    /** The health of a store a cluster shares, with no failure. */
    private static StoreHealth shared(String mode, int members, StoreHealth.Cluster figures) {
        return new StoreHealth(mode, members, StoreHealth.Failures.NONE, figures);
    }

    private List<String> storeGauges() {
        return registry.getMeters().stream().map(meter -> meter.getId().getName())
                .filter(name -> name.startsWith(MicrometerDecisionMetrics.STORE + ".")).toList();
    }
}
