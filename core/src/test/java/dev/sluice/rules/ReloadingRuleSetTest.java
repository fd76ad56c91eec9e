package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.LocalCounterStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReloadingRuleSetTest {

    @TempDir
    Path dir;

    private final LocalCounterStore store = new LocalCounterStore(new ManualTimeSource(), 1000, Runnable::run);
    private final List<RulesException> failures = new CopyOnWriteArrayList<>();
    private final List<RuleSet> reloads = new CopyOnWriteArrayList<>();
    private final ReloadingRuleSet.Listener listener = new ReloadingRuleSet.Listener() {
        @Override
        public void reloaded(RuleSet rules) {
            reloads.add(rules);
        }

        @Override
        public void failed(RulesException error) {
            failures.add(error);
        }
    };

    private static String rulesJson(String... rules) {
        return "{\"rules\": [" + String.join(",", rules) + "]}";
    }

    private static String rule(String id, String path, int permits) {
        return "{\"id\": \"" + id + "\", \"match\": {\"paths\": [\"" + path + "\"]}, \"limits\": [{\"permits\": "
                + permits + ", \"period\": \"1h\"}]}";
    }

    private Path write(String content) throws IOException {
        return Files.writeString(dir.resolve("rules.json"), content);
    }

    private boolean allowed(RuleSet rules, String path) {
        return rules.evaluate(TestRequest.get(path), store).allowed();
    }

    @Test
    void reload_newRule_takesEffectWithoutRestart() throws IOException {
        Path file = write(rulesJson(rule("a", "/a", 5)));
        ReloadingRuleSet rules = new ReloadingRuleSet(file, List.of(), listener);
        RuleSet before = rules.get();

        write(rulesJson(rule("a", "/a", 5), rule("b", "/b", 5)));

        assertThat(rules.reload()).isTrue();
        assertThat(rules.get().rules()).extracting(Rule::id).containsExactly("a", "b");
        assertThat(before.rules()).extracting(Rule::id).containsExactly("a");
        assertThat(reloads).containsExactly(rules.get());
    }

    @Test
    void reload_unchangedContent_doesNothing() throws IOException {
        Path file = write(rulesJson(rule("a", "/a", 5)));
        ReloadingRuleSet rules = new ReloadingRuleSet(file, List.of(), listener);
        RuleSet before = rules.get();

        write(rulesJson(rule("a", "/a", 5)));

        assertThat(rules.reload()).isFalse();
        assertThat(rules.get()).isSameAs(before);
    }

    @Test
    void reload_badFile_keepsOldRulesAndReportsOnce() throws IOException {
        Path file = write(rulesJson(rule("a", "/a", 5)));
        ReloadingRuleSet rules = new ReloadingRuleSet(file, List.of(), listener);
        RuleSet before = rules.get();

        write("{\"rules\": [{\"id\": \"a\", \"limits\": [{\"permits\": 5, \"period\": \"5 minutes\"}]}]}");

        assertThat(rules.reload()).isFalse();
        assertThat(rules.reload()).isFalse();
        assertThat(rules.get()).isSameAs(before);
        assertThat(failures).singleElement().satisfies(error -> assertThat(error.getMessage())
                .startsWith("rules.json:1:60: $.rules[0].limits[0].period: expected a duration"));

        write(rulesJson(rule("a", "/a", 6)));
        assertThat(rules.reload()).isTrue();
    }

    @Test
    void reload_deletedFile_keepsOldRulesAndReports() throws IOException {
        Path file = write(rulesJson(rule("a", "/a", 5)));
        ReloadingRuleSet rules = new ReloadingRuleSet(file, List.of(), listener);

        Files.delete(file);

        assertThat(rules.reload()).isFalse();
        assertThat(rules.get().rules()).hasSize(1);
        assertThat(failures).singleElement().satisfies(e -> assertThat(e.getMessage()).contains("cannot read"));
    }

    @Test
    void reload_unchangedRuleKeepsCounterState_changedLimitsStartFresh() throws IOException {
        Path file = write(rulesJson(rule("kept", "/kept", 1), rule("changed", "/changed", 1)));
        ReloadingRuleSet rules = new ReloadingRuleSet(file, List.of(), listener);
        assertThat(allowed(rules.get(), "/kept")).isTrue();
        assertThat(allowed(rules.get(), "/changed")).isTrue();

        write(rulesJson(rule("kept", "/kept", 1), rule("changed", "/changed", 2), rule("new", "/new", 1)));
        assertThat(rules.reload()).isTrue();

        assertThat(allowed(rules.get(), "/kept")).isFalse();
        assertThat(allowed(rules.get(), "/changed")).isTrue();
        assertThat(allowed(rules.get(), "/changed")).isTrue();
        assertThat(allowed(rules.get(), "/changed")).isFalse();
    }

    @Test
    void reload_keepsAnnotationRulesMerged() throws IOException {
        Rule annotated = Rule.builder("annotated").resourceMethods(List.of(Object.class.getMethods()[0]))
                .policy(Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(1, Duration.ofSeconds(1)))).build();
        Path file = write(rulesJson());
        ReloadingRuleSet rules = new ReloadingRuleSet(file, List.of(annotated), listener);

        write(rulesJson(rule("a", "/a", 5)));
        assertThat(rules.reload()).isTrue();

        assertThat(rules.get().rules()).extracting(Rule::id).containsExactly("a", "annotated");
    }

    @Test
    void constructor_badInitialFile_throws() throws IOException {
        Path file = write("{\"rules\": 1}");

        assertThatThrownBy(() -> new ReloadingRuleSet(file, List.of(), listener))
                .isInstanceOf(RulesException.class).hasMessage("rules.json:1:11: $.rules: expected an array, got 1");
    }

    @Test
    void start_pollsTheFileInTheBackground() throws Exception {
        Path file = write(rulesJson(rule("a", "/a", 5)));
        CountDownLatch reloaded = new CountDownLatch(1);
        try (ReloadingRuleSet rules = new ReloadingRuleSet(file, List.of(), new ReloadingRuleSet.Listener() {
            @Override
            public void reloaded(RuleSet ruleSet) {
                reloaded.countDown();
            }
        })) {
            rules.start(Duration.ofMillis(10));
            write(rulesJson(rule("b", "/b", 5)));

            assertThat(reloaded.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(rules.get().rules()).extracting(Rule::id).containsExactly("b");
            assertThatThrownBy(() -> rules.start(Duration.ofMillis(10))).isInstanceOf(IllegalStateException.class);
        }
    }
}
