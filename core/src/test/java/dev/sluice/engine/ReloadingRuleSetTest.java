package dev.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.LocalCounterStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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

    /** The rules of {@code file} and {@code annotationRules}, checked for changes only by {@code reload()}. */
    private ReloadingRuleSet load(Path file, Rule... annotationRules) {
        return ReloadingRuleSet.builder().file(file).annotationRules(List.of(annotationRules)).listener(listener)
                .reloadInterval(Duration.ZERO).build();
    }

    private boolean allowed(RuleSet rules, String path) {
        return rules.evaluate(TestRequest.get(path), store).allowed();
    }

    @Test
    void reload_newRule_takesEffectWithoutRestart() throws IOException {
        Path file = write(rulesJson(rule("a", "/a", 5)));
        ReloadingRuleSet rules = load(file);
        RuleSet before = rules.get();

        write(rulesJson(rule("a", "/a", 5), rule("b", "/b", 5)));

        assertThat(rules.reload()).isTrue();
        assertThat(rules.get().rules()).extracting(Rule::id).containsExactly("a", "b");
        assertThat(before.rules()).extracting(Rule::id).containsExactly("a");
        assertThat(reloads).containsExactly(rules.get());
    }

    @Test
    void version_reloadOfChangedContent_changesTheHash() throws IOException {
        Path file = write(rulesJson(rule("a", "/a", 5)));
        ReloadingRuleSet rules = load(file);
        ReloadingRuleSet.Version first = rules.version();
        assertThat(first.hash()).matches("[0-9a-f]{16}");

        write(rulesJson(rule("a", "/a", 5)));
        rules.reload();
        assertThat(rules.version()).isEqualTo(first);

        write(rulesJson(rule("a", "/a", 6)));
        rules.reload();
        assertThat(rules.version().hash()).matches("[0-9a-f]{16}").isNotEqualTo(first.hash());
        assertThat(rules.version().loadedAt()).isAfterOrEqualTo(first.loadedAt());
    }

    @Test
    void version_annotationRulesAlone_isNone() {
        assertThat(ReloadingRuleSet.builder().build().version().hash()).isEqualTo(ReloadingRuleSet.Version.NONE);
    }

    @Test
    void reload_unchangedContent_doesNothing() throws IOException {
        Path file = write(rulesJson(rule("a", "/a", 5)));
        ReloadingRuleSet rules = load(file);
        RuleSet before = rules.get();

        write(rulesJson(rule("a", "/a", 5)));

        assertThat(rules.reload()).isFalse();
        assertThat(rules.get()).isSameAs(before);
    }

    @Test
    void reload_badFile_keepsOldRulesAndReportsOnce() throws IOException {
        Path file = write(rulesJson(rule("a", "/a", 5)));
        ReloadingRuleSet rules = load(file);
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
        ReloadingRuleSet rules = load(file);

        Files.delete(file);

        assertThat(rules.reload()).isFalse();
        assertThat(rules.get().rules()).hasSize(1);
        assertThat(failures).singleElement().satisfies(e -> assertThat(e.getMessage()).contains("cannot read"));
    }

    @Test
    void reload_unchangedRuleKeepsCounterState_changedLimitsStartFresh() throws IOException {
        Path file = write(rulesJson(rule("kept", "/kept", 1), rule("changed", "/changed", 1)));
        ReloadingRuleSet rules = load(file);
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
        ReloadingRuleSet rules = load(file, annotated);

        write(rulesJson(rule("a", "/a", 5)));
        assertThat(rules.reload()).isTrue();

        assertThat(rules.get().rules()).extracting(Rule::id).containsExactly("a", "annotated");
    }

    @Test
    void build_badInitialFile_throws() throws IOException {
        Path file = write("{\"rules\": 1}");

        assertThatThrownBy(() -> load(file))
                .isInstanceOf(RulesException.class).hasMessage("rules.json:1:11: $.rules: expected an array, got 1");
    }

    @Test
    void build_withReloadInterval_pollsTheFileInTheBackground() throws Exception {
        Path file = write(rulesJson(rule("a", "/a", 5)));
        CountDownLatch reloaded = new CountDownLatch(1);
        try (ReloadingRuleSet rules = ReloadingRuleSet.builder().file(file).reloadInterval(Duration.ofMillis(10))
                .listener(new ReloadingRuleSet.Listener() {
                    @Override
                    public void reloaded(RuleSet ruleSet) {
                        reloaded.countDown();
                    }
                }).build()) {
            write(rulesJson(rule("b", "/b", 5)));

            assertThat(reloaded.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(rules.get().rules()).extracting(Rule::id).containsExactly("b");
        }
    }

    @Test
    void build_content_isReadOnceAndNeverReloaded() {
        ReloadingRuleSet rules = ReloadingRuleSet.builder()
                .content("classpath:rules.json", rulesJson(rule("a", "/a", 1)).getBytes(StandardCharsets.UTF_8))
                .listener(listener).build();

        assertThat(rules.get().rules()).extracting(Rule::id).containsExactly("a");
        assertThat(rules.reload()).isFalse();
        assertThatThrownBy(() -> ReloadingRuleSet.builder().content("classpath:rules.json",
                "{\"rules\": 1}".getBytes(StandardCharsets.UTF_8)).build())
                .isInstanceOf(RulesException.class).hasMessageStartingWith("classpath:rules.json:1:11: $.rules:");
    }

    @Test
    void build_noRulesFile_holdsTheAnnotationRules() {
        Rule annotated = Rule.builder("annotated").resourceMethods(List.of(Object.class.getMethods()[0]))
                .policy(Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(1, Duration.ofSeconds(1)))).build();

        ReloadingRuleSet rules = ReloadingRuleSet.builder().annotationRules(List.of(annotated)).build();

        assertThat(rules.get().rules()).containsExactly(annotated);
        assertThat(rules.reload()).isFalse();
    }

    @Test
    void build_clientAddresses_replaceTheFilesOnEveryReload() throws IOException {
        String trustingProxy = "{\"clientAddress\": {\"trustedProxies\": [\"10.0.0.1\"]}, \"rules\": ["
                + rule("a", "/a", 5) + "]}";
        Path file = write(trustingProxy);
        ReloadingRuleSet rules = ReloadingRuleSet.builder().file(file).listener(listener).reloadInterval(Duration.ZERO)
                .clientAddresses(ClientAddresses.behindProxies(List.of("10.0.0.2"), ClientAddresses.Header.FORWARDED))
                .build();
        TestRequest viaOverridingProxy = TestRequest.get("/a").from("10.0.0.2").header("Forwarded", "for=192.0.2.7");
        TestRequest viaFilesProxy = TestRequest.get("/a").from("10.0.0.1").header("X-Forwarded-For", "192.0.2.8");

        assertThat(key(rules.get(), viaOverridingProxy)).isEqualTo("192.0.2.7");
        assertThat(key(rules.get(), viaFilesProxy)).isEqualTo("10.0.0.1");
        write(trustingProxy.replace("\"/a\"", "\"/**\""));
        assertThat(rules.reload()).isTrue();
        assertThat(key(rules.get(), viaOverridingProxy)).isEqualTo("192.0.2.7");
        assertThat(key(rules.get(), viaFilesProxy)).isEqualTo("10.0.0.1");
    }

    private String key(RuleSet rules, TestRequest request) {
        return rules.evaluate(request, store).outcomes().get(0).key();
    }
}
