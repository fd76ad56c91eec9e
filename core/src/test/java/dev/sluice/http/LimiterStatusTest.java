package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.StoreHealth;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An adapter's status: the facts of its start line, read from its store and rules. */
class LimiterStatusTest {

    private static final String TWO_RULES = """
            {"rules": [{"id": "a", "match": {"paths": ["/a"]}, "key": {"type": "ip"},
                        "limits": [{"permits": 3, "period": "1m"}]},
                       {"id": "b", "match": {"paths": ["/b"]}, "key": {"type": "ip"},
                        "limits": [{"permits": 3, "period": "1m"}]}]}
            """;

    @TempDir
    Path dir;

    @Test
    void of_guardedClientStoreAndReloadedFile_saysEveryFact() throws Exception {
        Path file = Files.writeString(dir.resolve("rules.json"), TWO_RULES, StandardCharsets.UTF_8);
        CounterStore client = new ClientStore(new LocalCounterStore());
        try (ReloadingRuleSet rules = ReloadingRuleSet.builder().file(file).reloadInterval(Duration.ofSeconds(30))
                .build()) {
            LimiterStatus status = LimiterStatus.of("Sluice filter 'api'", FailurePolicyStore.fallingBackTo(client,
                    Duration.ofMillis(100), new LocalCounterStore()), rules.get(), rules.reloadInterval(),
                    "file:" + file, HeaderStyle.BOTH);

            assertThat(status).isEqualTo(new LimiterStatus("Sluice filter 'api'", "hazelcast-client", 2, 2,
                    "file:" + file, "30s", "local", "100ms", "both"));
            assertThat(status.startLine()).isEqualTo("Sluice filter 'api' started: store hazelcast-client (2 members),"
                    + " 2 rules from file:" + file + " (reload every 30s), failure policy local, timeout 100ms,"
                    + " headers both");
        }
    }

    @Test
    void of_localStoreAndNoRules_saysNothingIsLimitedAndNoFailurePolicy() {
        try (ReloadingRuleSet rules = ReloadingRuleSet.builder().build()) {
            LimiterStatus status = LimiterStatus.of("Sluice filter 'f'", new LocalCounterStore(), rules.get(),
                    rules.reloadInterval(), LimiterStatus.NONE, HeaderStyle.DRAFT);

            assertThat(status).isEqualTo(new LimiterStatus("Sluice filter 'f'", "local", 0, 0, "none", "off", "none",
                    "none", "draft"));
            assertThat(status.startLine()).isEqualTo("Sluice filter 'f' started: store local (this instance only), no"
                    + " rules (nothing is limited), no failure policy, headers draft");
        }
    }

    @Test
    void startLine_oneMemberOneRuleReadOnce_speaksInTheSingular() {
        LimiterStatus status = new LimiterStatus("Sluice Jersey binding", "hazelcast-member", 1, 1, "annotations",
                "off", "allow", "2s", "legacy");

        assertThat(status.startLine()).isEqualTo("Sluice Jersey binding started: store hazelcast-member (1 member),"
                + " 1 rule from annotations, failure policy allow, timeout 2s, headers legacy");
    }

    /** A store that says it is a Hazelcast client seeing two members, deciding locally. */
    private static final class ClientStore implements CounterStore {
        private final CounterStore local;

        ClientStore(CounterStore local) {
            this.local = local;
        }

        @Override
        public Decision apply(String key, Policy policy, long cost,
                                         long maxDelayNanos) {
            return local.apply(key, policy, cost, maxDelayNanos);
        }

        @Override
        public Decision peek(String key, Policy policy, long cost) {
            return local.peek(key, policy, cost);
        }

        @Override
        public StoreHealth health() {
            return new StoreHealth("hazelcast-client", 2, 0, 0, 0);
        }

        @Override
        public void close() {
            local.close();
        }
    }
}
