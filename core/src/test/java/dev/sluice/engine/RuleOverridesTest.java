package dev.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.http.HeaderStyle;
import dev.sluice.http.RateLimitResponse;
import dev.sluice.rules.KeySpec;
import dev.sluice.rules.Rule;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.LocalCounterStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Overrides set through {@link RuleOverrides}, applied by {@link RuleSet#evaluate}, on a manual clock. */
class RuleOverridesTest {

    private static final KeySpec API_KEY = KeySpec.of(KeySpec.Kind.HEADER, "X-Key");

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);
    private RuleSet rules = RuleSet.of(List.of(
            Rule.builder("api").paths("/api").key(API_KEY)
                    .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofMinutes(1)).named("api:3/1m")))
                    .build(),
            Rule.builder("jobs").paths("/jobs").key(API_KEY).concurrency(ConcurrencyLimit.of(1)).build()),
            ClientAddresses.direct());
    private final RuleOverrides overrides = new RuleOverrides(() -> rules, store);

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        store.close();
    }

    private static LimitOverride.Builder forKey(String rule, String key) {
        return LimitOverride.forKey(rule, key).lasting(Duration.ofMinutes(10)).reason("ticket 7").setBy("alice");
    }

    private Evaluation request(String path, String key) {
        return rules.evaluate(TestRequest.get(path).header("X-Key", key), store);
    }

    private int admitted(String key, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += request("/api", key).allowed() ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void set_unknownRule_throwsNamingTheRulesInForce() {
        assertThatThrownBy(() -> overrides.set(forKey("nope", "k").blocked()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no rule 'nope' among the rules in force"
                        + " [api, jobs]");
    }

    @Test
    void set_limitsForAConcurrencyLimitAlone_throws() {
        assertThatThrownBy(() -> overrides.set(forKey("jobs", "k").limits(Limit.of(5, Duration.ofMinutes(1)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("concurrency limit alone");
    }

    @Test
    void set_limitsTheAlgorithmCannotTake_throwsNamingTheAlgorithm() {
        assertThatThrownBy(() -> overrides.set(forKey("api", "k")
                .limits(Limit.of(5, Duration.ofMinutes(1)).withCapacity(10))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("rule 'api' counts with the fixed_window, which cannot take");
    }

    @Test
    void evaluate_blockedKey_rejectsWithTheUsualHeadersAndCountsNothing() {
        overrides.set(forKey("api", "k").blocked());

        Evaluation blocked = request("/api", "k");

        assertThat(blocked.allowed()).isFalse();
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitResponse.of(blocked).orElseThrow().writeHeaders(HeaderStyle.BOTH, headers::put);
        assertThat(headers).containsEntry("Retry-After", "600").containsEntry("X-RateLimit-Limit", "3")
                .containsEntry("X-RateLimit-Remaining", "0");
        assertThat(admitted("other", 5)).isEqualTo(3);

        assertThat(overrides.remove(LimitOverride.Target.key("api", "k"), "bob")).isPresent();
        assertThat(admitted("k", 5)).as("nothing was counted while blocked").isEqualTo(3);
    }

    @Test
    void evaluate_blockedKeyOfAConcurrencyLimit_rejectsHoldingNoPermit() {
        overrides.set(forKey("jobs", "k").blocked());

        assertThat(request("/jobs", "k").allowed()).isFalse();
        assertThat(request("/jobs", "other").allowed()).isTrue();
    }

    @Test
    void evaluate_exemptKey_passesUncounted() {
        overrides.set(forKey("api", "k").exempt());

        assertThat(admitted("k", 10)).isEqualTo(10);
        assertThat(request("/api", "k").outcomes()).isEmpty();
    }

    @Test
    void evaluate_raisedLimitOfAKey_admitsExactlyTheNewLimitThenTheOwnAfterExpiry() {
        overrides.set(forKey("api", "k").limits(Limit.of(10, Duration.ofMinutes(1))));

        assertThat(admitted("k", 20)).isEqualTo(10);
        assertThat(admitted("other", 20)).isEqualTo(3);

        time.advance(Duration.ofMinutes(10));

        assertThat(admitted("k", 20)).as("the rule's own limit, its own counter").isEqualTo(3);
    }

    @Test
    void evaluate_loweredLimitOfTheRule_countsEveryKeyUnderIt() {
        overrides.set(LimitOverride.forRule("api").limits(Limit.of(1, Duration.ofMinutes(1)))
                .lasting(Duration.ofMinutes(5)).reason("incident").setBy("alice"));

        assertThat(admitted("a", 5)).isEqualTo(1);
        assertThat(admitted("b", 5)).isEqualTo(1);
    }

    @Test
    void evaluate_overrideOfTheRulesOwnLimits_keepsCountingWhereTheRuleWas() {
        assertThat(admitted("k", 2)).isEqualTo(2);
        overrides.set(forKey("api", "k").limits(Limit.of(3, Duration.ofMinutes(1))));

        assertThat(admitted("k", 5)).as("the same limits are the same counter").isEqualTo(1);
    }

    @Test
    void evaluate_rulesReloaded_keepsTheOverrides() throws IOException {
        Path file = dir.resolve("rules.json");
        String rule = "{\"rules\": [{\"id\": \"api\", \"match\": {\"paths\": [\"/api\"]},"
                + " \"key\": {\"type\": \"header\", \"name\": \"X-Key\"}, \"algorithm\": \"fixed_window\","
                + " \"limits\": [{\"permits\": %d, \"period\": \"1m\"}]}]}";
        Files.writeString(file, rule.formatted(3));
        try (ReloadingRuleSet reloading = ReloadingRuleSet.builder().file(file).reloadInterval(Duration.ZERO)
                .build()) {
            reloading.followOverrides(store.services().overrides());
            RuleOverrides fromFile = new RuleOverrides(reloading, store);
            fromFile.set(forKey("api", "k").blocked());

            Files.writeString(file, rule.formatted(4));
            assertThat(reloading.reload()).isTrue();
            rules = reloading.get();

            assertThat(admitted("k", 5)).isZero();
            assertThat(admitted("other", 5)).isEqualTo(4);
            assertThat(fromFile.unmatched()).isEmpty();
        }
    }

    @Test
    void unmatched_ruleRemovedByAReload_listsItsOverrideWhichAppliesToNothing() {
        overrides.set(forKey("jobs", "k").blocked());

        rules = RuleSet.of(List.of(rules.rules().get(0)), ClientAddresses.direct());

        assertThat(overrides.unmatched()).extracting(LimitOverride::ruleId).containsExactly("jobs");
        assertThat(overrides.list()).hasSize(1);
    }
}
