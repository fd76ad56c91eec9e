package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ManualTimeSource;
import dev.sluice.rules.RuleSet;
import dev.sluice.rules.RulesFile;
import dev.sluice.rules.TestRequest;
import dev.sluice.store.LocalCounterStore;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecisionStatsTest {

    private static final RuleSet RULES = rules("""
            {"rules": [
              {"id": "enforced", "match": {"paths": ["/enforced"]}, "limits": [{"permits": 2, "period": "1m"}]},
              {"id": "shadow", "match": {"paths": ["/shadow"]}, "limits": [{"permits": 1, "period": "1m"}],
               "mode": "shadow"}
            ]}""");

    private final ManualTimeSource clock = new ManualTimeSource(Duration.ofDays(1).toNanos());
    private final LocalCounterStore store = new LocalCounterStore(clock, 1_000);
    private final DecisionStats stats = new DecisionStats(clock);

    private static RuleSet rules(String json) {
        return RulesFile.parse("test-rules.json", json).toRuleSet();
    }

    private void request(String path, String clientAddress) {
        request(RULES, path, clientAddress);
    }

    private void request(RuleSet rules, String path, String clientAddress) {
        stats.record(rules.evaluate(TestRequest.get(path).from(clientAddress), store));
    }

    private DecisionStats.RuleSeries series(String ruleId) {
        return stats.snapshot().rules().stream().filter(rule -> rule.id().equals(ruleId)).findFirst().orElseThrow();
    }

    @Test
    void record_countsEachOutcomeInTheCurrentBucket() {
        request("/enforced", "192.0.2.1");
        request("/enforced", "192.0.2.1");
        request("/enforced", "192.0.2.1");
        request("/shadow", "192.0.2.1");
        request("/shadow", "192.0.2.1");

        DecisionStats.RuleSeries enforced = series("enforced");
        assertThat(enforced.allowed()).hasSize(DecisionStats.BUCKETS).endsWith(2);
        assertThat(enforced.rejected()).endsWith(1);
        DecisionStats.RuleSeries shadow = series("shadow");
        assertThat(shadow.mode()).isEqualTo("shadow");
        assertThat(shadow.allowed()).endsWith(1);
        assertThat(shadow.shadowRejected()).endsWith(1);
        assertThat(shadow.rejected()).containsOnly(0);
    }

    @Test
    void snapshot_bucketsMoveLeftWithTimeAndAgeOutAfterTheWindow() {
        request("/enforced", "192.0.2.1");
        clock.advance(DecisionStats.BUCKET);
        request("/enforced", "192.0.2.2");

        assertThat(series("enforced").allowed()).endsWith(1, 1);
        clock.advance(DecisionStats.BUCKET.multipliedBy(DecisionStats.BUCKETS - 1));
        assertThat(series("enforced").allowed()).startsWith(1).containsOnly(0, 1);
        clock.advance(DecisionStats.BUCKET);
        assertThat(series("enforced").allowed()).containsOnly(0);
    }

    @Test
    void snapshot_keysAreMaskedAndTheMostRecentComesFirst() {
        for (int i = 1; i <= DecisionStats.RECENT_KEYS + 2; i++) {
            request("/enforced", "192.0.2." + i);
        }
        List<DecisionStats.KeyCounts> keys = series("enforced").keys();
        assertThat(keys).hasSize(DecisionStats.RECENT_KEYS)
                .allSatisfy(key -> assertThat(key.key()).matches("#[0-9a-f]{8}").doesNotContain("192.0.2"));
        request("/enforced", "192.0.2." + (DecisionStats.RECENT_KEYS + 2));
        assertThat(series("enforced").keys().get(0).key()).isEqualTo(keys.get(0).key());
        assertThat(series("enforced").keys().get(0).allowed()).isEqualTo(2);
    }

    @Test
    void record_afterARulesReload_showsTheRulesLatestDefinition() {
        request("/enforced", "192.0.2.1");
        DecisionStats.RuleSeries before = series("enforced");
        RuleSet reloaded = rules("""
                {"rules": [{"id": "enforced", "match": {"paths": ["/enforced"]}, "mode": "shadow",
                            "algorithm": "leaky_bucket", "limits": [{"permits": 7, "period": "1h"}]}]}""");

        request(reloaded, "/enforced", "192.0.2.1");

        DecisionStats.RuleSeries after = series("enforced");
        assertThat(after.mode()).isEqualTo("shadow");
        assertThat(after.algorithm()).isEqualTo("leaky_bucket");
        assertThat(after.limits()).isNotEqualTo(before.limits()).singleElement().asString().contains("7");
        assertThat(after.allowed()).as("the counts are kept").endsWith(2);
    }
}
