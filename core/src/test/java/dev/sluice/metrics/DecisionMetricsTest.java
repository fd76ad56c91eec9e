package dev.sluice.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.engine.Evaluation;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.StoreHealth;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class DecisionMetricsTest {

    /** Records what it is told, by name. */
    private static final class Log implements DecisionMetrics {
        private final String name;
        private final List<String> events;

        Log(String name, List<String> events) {
            this.name = name;
            this.events = events;
        }

        @Override
        public void recorded(Evaluation evaluation, long decisionNanos) {
            events.add(name + " recorded " + evaluation.outcomes().size() + " in " + decisionNanos);
        }

        @Override
        public void storeFailed(String ruleId) {
            events.add(name + " failed " + ruleId);
        }

        @Override
        public void taken(String ruleId) {
            events.add(name + " took " + ruleId);
        }

        @Override
        public void released(String ruleId) {
            events.add(name + " released " + ruleId);
        }

        @Override
        public void waitStarted(String ruleId) {
            events.add(name + " waits " + ruleId);
        }

        @Override
        public void waitGranted(String ruleId) {
            events.add(name + " granted " + ruleId);
        }

        @Override
        public void waitTimedOut(String ruleId) {
            events.add(name + " timed out " + ruleId);
        }

        @Override
        public Watch watch(Supplier<StoreHealth> health) {
            events.add(name + " watches " + health.get().mode());
            return () -> events.add(name + " closed");
        }
    }

    @Test
    void all_twoMetrics_eachIsToldEverythingInTurn() {
        List<String> events = new ArrayList<>();
        DecisionMetrics both = DecisionMetrics.all(new Log("a", events), new Log("b", events));
        Evaluation evaluation;
        try (LocalCounterStore store = new LocalCounterStore()) {
            evaluation = ReloadingRuleSet.builder().content("rules.json", """
                    {"rules": [{"id": "r", "match": {"paths": ["/**"]}, "key": {"type": "ip"},
                                "limits": [{"permits": 5, "period": "1m"}]}]}
                    """.getBytes(StandardCharsets.UTF_8)).build().get().evaluate(TestRequest.get("/x"), store);
        }

        both.recorded(evaluation, 7);
        both.storeFailed("r");
        both.taken("p");
        both.released("p");
        both.waitStarted("q");
        both.waitGranted("q");
        both.waitTimedOut("q");
        both.watch(() -> StoreHealth.LOCAL).close();

        assertThat(events).containsExactly("a recorded 1 in 7", "b recorded 1 in 7", "a failed r", "b failed r",
                "a took p", "b took p", "a released p", "b released p", "a waits q", "b waits q", "a granted q",
                "b granted q", "a timed out q", "b timed out q", "a watches local", "b watches local", "a closed",
                "b closed");
    }
}
