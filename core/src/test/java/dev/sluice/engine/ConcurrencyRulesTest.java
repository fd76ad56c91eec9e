package dev.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.annotation.RateLimited;
import dev.sluice.http.HeaderStyle;
import dev.sluice.http.ProblemDetails;
import dev.sluice.http.RateLimitResponse;
import dev.sluice.rules.AnnotationRules;
import dev.sluice.rules.RuleLimits;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.file.RulesFile;
import dev.sluice.rules.match.RequestEnd;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.LocalCounterStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrency limits as rules (issue 26): read from the rules file and annotations, held while a request is in
 * flight, all or nothing with rate limits, and answered with the draft's concurrent-requests unit.
 */
class ConcurrencyRulesTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore local = new LocalCounterStore(time, 10_000, Runnable::run);

    @AfterEach
    void close() {
        local.close();
    }

    private static RuleSet rules(String json) {
        return RuleSet.combine(RulesFile.parse("rules.json", json), List.of());
    }

    private static final String EXPORTS = """
            {"rules": [{"id": "exports", "match": {"paths": ["/export"]}, "key": {"type": "constant"},
                        "concurrency": 2, "maxHold": "30s"}]}""";

    private static final String EXPORTS_AND_RATE = """
            {"rules": [{"id": "exports", "match": {"paths": ["/export"]}, "key": {"type": "constant"},
                        "limits": [{"permits": 3, "period": "1m"}], "concurrency": 2}]}""";

    private Evaluation request(RuleSet rules) {
        return rules.evaluate(TestRequest.get("/export"), local);
    }

    private static Map<String, String> headers(Evaluation evaluation) {
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitResponse.of(evaluation).orElseThrow().writeHeaders(HeaderStyle.BOTH, headers::put);
        return headers;
    }

    @Test
    void parse_concurrencyAndMaxHold_makeTheRulesConcurrencyLimit() {
        Rule rule = rules(EXPORTS).rules().get(0);

        assertThat(rule.concurrency()).contains(ConcurrencyLimit.of(2, Duration.ofSeconds(30))
                .named("exports:2 concurrent"));
        assertThat(rule.requestLimits()).isEmpty();
    }

    @Test
    void parse_concurrencyWithoutMaxHold_holdsAtMostFiveMinutes() {
        Rule rule = rules(EXPORTS_AND_RATE).rules().get(0);

        assertThat(rule.concurrency().orElseThrow().maxHold()).isEqualTo(Duration.ofMinutes(5));
        assertThat(rule.requestLimits()).isPresent();
    }

    @Test
    void parse_maxHoldWithoutConcurrency_isAnErrorAtTheField() {
        assertThatThrownBy(() -> rules("""
                {"rules": [{"id": "r", "match": {"paths": ["/p"]}, "limits": [{"permits": 3, "period": "1m"}],
                            "maxHold": "1m"}]}"""))
                .isInstanceOf(RulesException.class).hasMessageContaining("rules.json:2:")
                .hasMessageContaining("\"maxHold\" bounds a concurrency limit");
    }

    @Test
    void parse_concurrencyOfZero_isAnErrorAtTheField() {
        assertThatThrownBy(() -> rules("""
                {"rules": [{"id": "r", "match": {"paths": ["/p"]}, "concurrency": 0}]}"""))
                .isInstanceOf(RulesException.class).hasMessageContaining("rules.json:1:");
    }

    @Test
    void evaluate_moreRequestsInFlightThanTheLimit_rejectsTheThirdUntilOneIsReleased() {
        RuleSet rules = rules(EXPORTS);
        Evaluation first = request(rules);
        Evaluation second = request(rules);

        Evaluation third = request(rules);

        assertThat(first.allowed()).isTrue();
        assertThat(second.allowed()).isTrue();
        assertThat(third.allowed()).isFalse();
        first.end(RequestEnd.NOTHING_SAID);
        assertThat(request(rules).allowed()).isTrue();
    }

    @Test
    void release_calledTwice_releasesThePermitOnce() {
        RuleSet rules = rules(EXPORTS);
        Evaluation first = request(rules);
        request(rules);

        first.end(RequestEnd.NOTHING_SAID);
        first.end(RequestEnd.NOTHING_SAID);

        assertThat(request(rules).allowed()).isTrue();
        assertThat(request(rules).allowed()).isFalse();
    }

    @Test
    void evaluate_concurrencyRejects_takesNothingFromTheRateLimit() {
        RuleSet rules = rules(EXPORTS_AND_RATE);
        request(rules);
        request(rules);

        Evaluation third = request(rules);

        assertThat(third.allowed()).isFalse();
        assertThat(third.outcomes()).extracting(outcome -> outcome.decision().remaining()).containsExactly(1L, 0L);
        assertThat(local.permitsHeld()).isEqualTo(2);
    }

    @Test
    void evaluate_rateRejects_takesNoPermit() {
        RuleSet rules = rules(EXPORTS_AND_RATE);
        for (int i = 0; i < 3; i++) {
            request(rules).end(RequestEnd.NOTHING_SAID);
        }

        Evaluation fourth = request(rules);

        assertThat(fourth.allowed()).isFalse();
        assertThat(fourth.outcomes()).singleElement().satisfies(outcome -> assertThat(outcome.concurrency()).isFalse());
        assertThat(local.permitsHeld()).isZero();
    }

    @Test
    void evaluate_concurrencyOfOneRuleRejects_releasesThePermitOfAnother() {
        RuleSet rules = rules("""
                {"rules": [{"id": "all", "match": {"paths": ["/export"]}, "key": {"type": "constant"},
                            "concurrency": 5},
                           {"id": "exports", "match": {"paths": ["/export"]}, "key": {"type": "constant"},
                            "concurrency": 1}]}""");
        request(rules);

        Evaluation second = request(rules);

        assertThat(second.allowed()).isFalse();
        assertThat(local.permitsHeld()).isEqualTo(2);
        assertThat(second.outcomes().get(0).decision().remaining()).isEqualTo(4);
    }

    @Test
    void writeHeaders_grant_carriesTheConcurrentRequestsUnitAndNoWindow() {
        Map<String, String> headers = headers(request(rules(EXPORTS_AND_RATE)));

        assertThat(headers.get("RateLimit-Policy")).isEqualTo(
                "\"exports:3/1m\";q=3;w=60, \"exports:2 concurrent\";q=2;qu=\"concurrent-requests\"");
        assertThat(headers.get("RateLimit")).isEqualTo("\"exports:3/1m\";r=2;t=20, \"exports:2 concurrent\";r=1");
    }

    @Test
    void writeHeaders_concurrencyRejection_sendsNoRetryAfter() {
        RuleSet rules = rules(EXPORTS);
        request(rules);
        request(rules);

        Evaluation third = request(rules);
        Map<String, String> headers = headers(third);
        ProblemDetails problem = RateLimitResponse.of(third).orElseThrow().problem();

        assertThat(headers).doesNotContainKey("Retry-After");
        assertThat(headers.get("RateLimit")).isEqualTo("\"exports:2 concurrent\";r=0");
        assertThat(problem.status()).isEqualTo(429);
        assertThat(problem.retryAfterSeconds()).isEqualTo(-1);
        assertThat(problem.policies()).containsExactly("exports:2 concurrent");
        assertThat(problem.toJson()).doesNotContain("retryAfter")
                .contains("2 requests in flight at most. Retry when one of them has ended.");
    }

    public static class ExportResource {
        @RateLimited(id = "export", concurrency = 4, maxHold = "10m", key = "constant")
        @RateLimited(id = "export", permits = 100, period = "1h", key = "constant")
        public void export() {
        }

        @RateLimited(id = "alone", concurrency = 1)
        public void alone() {
        }

        @RateLimited(id = "hold", permits = 1, period = "1s", maxHold = "1m")
        public void holdWithoutConcurrency() {
        }
    }

    private static Rule annotated(String method) throws NoSuchMethodException {
        return AnnotationRules.forMethod(ExportResource.class, ExportResource.class.getMethod(method)).get(0);
    }

    @Test
    void forMethod_concurrencyBesideARate_givesARuleOfBoth() throws NoSuchMethodException {
        Rule rule = annotated("export");

        assertThat(rule.concurrency()).contains(ConcurrencyLimit.of(4, Duration.ofMinutes(10))
                .named("export:4 concurrent"));
        assertThat(rule.requestLimits().map(RuleLimits::defaults)).contains(Policy.of(Algorithm.TOKEN_BUCKET,
                Limit.of(100, Duration.ofHours(1)).named("export:100/1h")));
    }

    @Test
    void forMethod_concurrencyAlone_givesARuleWithoutRates() throws NoSuchMethodException {
        Rule rule = annotated("alone");

        assertThat(rule.concurrency().orElseThrow().permits()).isEqualTo(1);
        assertThat(rule.requestLimits()).isEmpty();
    }

    @Test
    void forMethod_maxHoldWithoutConcurrency_isAnError() {
        assertThatThrownBy(() -> annotated("holdWithoutConcurrency")).isInstanceOf(RulesException.class)
                .hasMessageContaining("concurrency must be at least 1 when maxHold is given");
    }
}
