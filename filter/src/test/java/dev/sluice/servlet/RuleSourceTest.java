package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ManualTimeSource;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.engine.RuleSet;
import dev.sluice.rules.Rule;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.LocalCounterStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code rules} setting resolved to the rules the filter evaluates, without a container (no ServletContext). */
class RuleSourceTest {

    @TempDir
    Path dir;

    private final LocalCounterStore store = new LocalCounterStore(new ManualTimeSource(), 100, Runnable::run);

    @AfterEach
    void closeStore() {
        store.close();
    }

    private static String rulesTrusting(String proxy, String path) {
        return "{\"clientAddress\": {\"trustedProxies\": [\"" + proxy + "\"]}, \"rules\": [{\"id\": \"r\","
                + " \"match\": {\"paths\": [\"" + path + "\"]}, \"limits\": [{\"permits\": 9, \"period\": \"1m\"}]}]}";
    }

    private String key(RuleSet rules, String peer, String forwardedFor) {
        return rules.evaluate(TestRequest.get("/a").from(peer).header("X-Forwarded-For", forwardedFor), store)
                .outcomes().get(0).key();
    }

    @Test
    void load_fileWithTrustedProxiesInTheSettings_theSettingsReplaceTheFilesOnEveryReload() throws IOException {
        Path file = Files.writeString(dir.resolve("rules.json"), rulesTrusting("10.0.0.1", "/a"));
        FilterSettings settings = FilterSettings.builder().rules("file:" + file).rulesReloadInterval(Duration.ZERO)
                .trustedProxies(List.of("10.0.0.2")).build();

        try (ReloadingRuleSet rules = RuleSource.load(settings, null)) {
            assertThat(key(rules.get(), "10.0.0.2", "192.0.2.1")).isEqualTo("192.0.2.1");
            assertThat(key(rules.get(), "10.0.0.1", "192.0.2.1")).isEqualTo("10.0.0.1");

            Files.writeString(file, rulesTrusting("10.0.0.1", "/**"));
            assertThat(rules.reload()).isTrue();
            assertThat(key(rules.get(), "10.0.0.2", "192.0.2.1")).isEqualTo("192.0.2.1");
            assertThat(key(rules.get(), "10.0.0.1", "192.0.2.1")).isEqualTo("10.0.0.1");
        }
    }

    @Test
    void load_classpathResource_isReadOnceUnderItsLocation() {
        FilterSettings settings = FilterSettings.builder().rules("classpath:/dev/sluice/servlet/rule-source.json")
                .build();

        try (ReloadingRuleSet rules = RuleSource.load(settings, null)) {
            assertThat(rules.get().rules()).extracting(Rule::id).containsExactly("from-classpath");
            assertThat(rules.get().rules().get(0).origin())
                    .startsWith("classpath:/dev/sluice/servlet/rule-source.json:");
            assertThat(rules.reload()).isFalse();
        }
    }

    @Test
    void load_missingClasspathResource_namesTheSetting() {
        FilterSettings settings = FilterSettings.builder().rules("classpath:no-such-rules.json").build();

        assertThatThrownBy(() -> RuleSource.load(settings, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("init-param 'rules': no resource at classpath:no-such-rules.json");
    }

    @Test
    void load_noRulesSetting_matchesNothing() {
        try (ReloadingRuleSet rules = RuleSource.load(FilterSettings.builder().build(), null)) {
            assertThat(rules.get().rules()).isEmpty();
        }
    }

    /** The filter and the Jersey binding check a rules file equally often unless told otherwise. */
    @Test
    void settings_defaultReloadInterval_isTheRuleSetsDefault() {
        assertThat(FilterSettings.builder().build().rulesReloadInterval())
                .isEqualTo(ReloadingRuleSet.DEFAULT_RELOAD_INTERVAL);
    }
}
