package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.StoreHealth;
import dev.sluice.store.StoreServices;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
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
        public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
            return local.executeAsync(key, command);
        }

        @Override
        public StoreServices services() {
            return local.services().withHealth(any -> new StoreHealth("hazelcast-client", 2,
                    StoreHealth.Failures.NONE, StoreHealth.Cluster.NONE));
        }

        @Override
        public void close() {
            local.close();
        }
    }
}
