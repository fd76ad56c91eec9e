package dev.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.engine.Evaluation;
import dev.sluice.engine.Permits;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.engine.RuleSet;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.LocalCounterStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConsoleRecorderTest {

    static final String RULES = """
            {"rules": [
              {"id": "hello", "match": {"paths": ["/hello"]}, "key": {"type": "ip"},
               "limits": [{"permits": 5, "period": "1h"}], "algorithm": "token_bucket"},
              {"id": "catalog", "match": {"paths": ["/catalog"]}, "key": {"type": "ip"}, "mode": "shadow",
               "limits": [{"permits": 2, "period": "1h"}], "algorithm": "fixed_window"},
              {"id": "inflight", "match": {"paths": ["/slow"]}, "key": {"type": "ip"},
               "concurrency": 3}
            ]}
            """;

    static RuleSet rules(String json) {
        return ReloadingRuleSet.builder().content("rules.json", json.getBytes(StandardCharsets.UTF_8)).build().get();
    }

    @Test
    void recorded_overAndUnderTheLimit_countsEachOutcomeAndTheLimitedKey() {
        RuleSet rules = rules(RULES);
        ConsoleRecorder recorder = new ConsoleRecorder();
        try (LocalCounterStore store = new LocalCounterStore()) {
            for (int i = 0; i < 8; i++) {
                recorder.recorded(rules.evaluate(TestRequest.get("/hello").from("198.51.100.1"), store), 0);
            }
            for (int i = 0; i < 3; i++) {
                recorder.recorded(rules.evaluate(TestRequest.get("/catalog").from("198.51.100.2"), store), 0);
            }
        }

        assertThat(recorder.sample()).extracting(ConsoleRecorder.Sample::id, ConsoleRecorder.Sample::totals)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("hello", new Counts(5, 0, 3, 0)),
                        org.assertj.core.groups.Tuple.tuple("catalog", new Counts(2, 0, 0, 1)));
        ConsoleRecorder.Sample hello = recorder.sample().stream().filter(s -> s.id().equals("hello")).findFirst()
                .orElseThrow();
        assertThat(hello.keys()).containsExactly(new KeyFigures("198.51.100.1", 3, 0));
        assertThat(hello.limit()).isEqualTo("token_bucket hello:5/1h");
        assertThat(hello.mode()).isEqualTo("enforce");
    }

    @Test
    void reservedAndSettled_asMetricsOrFromTheEndedEvaluation_countTheRulesCostsOnce() {
        RuleSet rules = rules("""
                {"rules": [{"id": "llm", "match": {"paths": ["/complete"]}, "key": {"type": "constant"},
                            "limits": [{"permits": 100, "period": "1h", "unit": "tokens"}],
                            "estimate": {"type": "header", "name": "X-Max-Tokens"}}]}""");
        ConsoleRecorder asMetrics = new ConsoleRecorder();
        ConsoleRecorder afterTheChain = new ConsoleRecorder();
        try (LocalCounterStore store = new LocalCounterStore()) {
            for (long used : new long[] {10, 70}) {
                Evaluation evaluation = rules.evaluate(TestRequest.get("/complete").header("X-Max-Tokens", "40"),
                        store, null, Permits.telling(asMetrics)).join();
                asMetrics.recorded(evaluation, 0);
                evaluation.settle(used);
                afterTheChain.recorded(evaluation, 0);
                afterTheChain.ended(evaluation);
            }
        }

        for (ConsoleRecorder recorder : List.of(asMetrics, afterTheChain)) {
            assertThat(recorder.sample().get(0).costs()).containsExactly(new CostFigures("tokens", 80, 80, 30, 0));
        }
        assertThat(ConsoleRecorder.describe(rules.rule("llm").orElseThrow()))
                .isEqualTo("token_bucket llm:100 tokens/1h");
    }

    @Test
    void describe_concurrencyOnlyRule_namesItsPermits() {
        assertThat(ConsoleRecorder.describe(rules(RULES).rule("inflight").orElseThrow())).isEqualTo("3 concurrent");
    }
}
