package dev.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.annotation.RateLimited;
import dev.sluice.http.HeaderStyle;
import dev.sluice.http.ProblemDetails;
import dev.sluice.http.RateLimitResponse;
import dev.sluice.rules.ActualCost;
import dev.sluice.rules.AnnotationRules;
import dev.sluice.rules.Estimate;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.UnitCosts;
import dev.sluice.rules.file.RulesFile;
import dev.sluice.rules.match.RequestEnd;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.Command;
import dev.sluice.store.CounterKeys;
import dev.sluice.store.LocalCounterStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rules whose limits count a unit other than requests (issue 34): read from the rules file and annotations, each
 * request reserving its estimate and settling its actual cost once when it ends, a refused estimate counted nowhere,
 * a debt refusing the key's next requests until the time {@code Retry-After} says.
 */
class CostRulesTest {

    private static final long SECOND = 1_000_000_000L;

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore local = new LocalCounterStore(time, 10_000, Runnable::run);
    private final Events events = new Events();
    private final Permits telling = Permits.telling(events);

    @AfterEach
    void close() {
        local.close();
    }

    /** Twenty requests and a hundred tokens a minute per API key, the estimate from X-Max-Tokens (at most 40). */
    private static final String LLM = """
            {"rules": [{"id": "llm", "match": {"paths": ["/complete"]},
                        "key": {"type": "header", "name": "X-Api-Key"}, "algorithm": "fixed_window",
                        "limits": [{"permits": 20, "period": "1m"}, {"permits": 100, "period": "1m", "unit": "tokens"}],
                        "estimate": {"type": "header", "name": "X-Max-Tokens", "max": 40},
                        "actual": {"type": "header", "name": "X-Tokens-Used"}}]}""";

    private static RuleSet rules(String json) {
        return RuleSet.combine(RulesFile.parse("rules.json", json), List.of());
    }

    private Evaluation request(RuleSet rules, @Nullable String maxTokens) {
        TestRequest request = TestRequest.get("/complete").header("X-Api-Key", "key-1");
        if (maxTokens != null) {
            request.header("X-Max-Tokens", maxTokens);
        }
        return rules.evaluate(request, local, null, telling).join();
    }

    private long tokensLeft(RuleSet rules) {
        Rule rule = rules.rules().get(0);
        Policy tokens = rule.unitLimits().orElseThrow().defaults();
        return local.execute(CounterKeys.prefix(rule.id(), tokens) + "key-1", Command.peek(tokens, 0)).remaining();
    }

    private static RequestEnd header(String name, String value) {
        return new RequestEnd() {
            @Override
            public @Nullable String responseHeader(String field) {
                return field.equalsIgnoreCase(name) ? value : null;
            }

            @Override
            public @Nullable Object attribute(String attribute) {
                return null;
            }
        };
    }

    /** What a rule's reservations told, in order. */
    private static final class Events implements PermitEvents {
        final List<String> told = new ArrayList<>();

        @Override
        public synchronized void reserved(String ruleId, String unit, long estimate) {
            told.add("reserved " + ruleId + " " + estimate + " " + unit);
        }

        @Override
        public synchronized void settled(String ruleId, String unit, long estimate, long actual) {
            told.add("settled " + ruleId + " " + estimate + " at " + actual);
        }
    }

    @Test
    void parse_limitsInAUnit_makeTheRulesMeteredPolicyBesideItsRequestLimits() {
        Rule rule = rules(LLM).rules().get(0);

        assertThat(rule.requestLimits().orElseThrow().defaults().limits())
                .containsExactly(Limit.of(20, Duration.ofMinutes(1))
                .named("llm:20/1m"));
        Policy tokens = rule.unitLimits().orElseThrow().defaults();
        assertThat(tokens.unit()).isEqualTo("tokens");
        assertThat(tokens.limits()).containsExactly(Limit.of(100, Duration.ofMinutes(1)).named("llm:100 tokens/1m"));
        assertThat(rule.unitCosts().map(UnitCosts::estimate)).contains(Estimate.header("X-Max-Tokens").max(40));
        assertThat(rule.actualCost()).isEqualTo(ActualCost.header("X-Tokens-Used"));
        assertThat(CounterKeys.prefix("llm", tokens)).isNotEqualTo(CounterKeys.prefix("llm",
                Policy.of(Algorithm.FIXED_WINDOW, tokens.limits())));
    }

    @Test
    void evaluate_estimateFromAHeader_isReservedAndSettledAtTheActualCostTheResponseSays() {
        RuleSet rules = rules(LLM);
        Evaluation evaluation = request(rules, "30");

        assertThat(evaluation.allowed()).isTrue();
        assertThat(evaluation.holdsUntilEnd()).isTrue();
        assertThat(tokensLeft(rules)).isEqualTo(70);

        evaluation.end(header("x-tokens-used", "12"));

        assertThat(tokensLeft(rules)).isEqualTo(88);
        assertThat(evaluation.reservations().get(0).settled()).isEqualTo(OptionalLong.of(12));
        assertThat(events.told).containsExactly("reserved llm 30 tokens", "settled llm 30 at 12");
    }

    @Test
    void end_requestSaidNothing_keepsTheEstimate() {
        RuleSet rules = rules(LLM);
        Evaluation evaluation = request(rules, "30");

        evaluation.end(RequestEnd.NOTHING_SAID);

        assertThat(tokensLeft(rules)).isEqualTo(70);
        assertThat(events.told).containsExactly("reserved llm 30 tokens", "settled llm 30 at 30");
    }

    @Test
    void end_unreadableActualCost_keepsTheEstimate() {
        RuleSet rules = rules(LLM);
        Evaluation evaluation = request(rules, "30");

        evaluation.end(header("X-Tokens-Used", "a dozen"));

        assertThat(tokensLeft(rules)).isEqualTo(70);
    }

    @Test
    void settleThenEndThenSettle_settlesOnceAtTheFirstActualCost() {
        RuleSet rules = rules(LLM);
        Evaluation evaluation = request(rules, "30");

        evaluation.settle(5);
        evaluation.end(header("X-Tokens-Used", "12"));
        evaluation.end(RequestEnd.NOTHING_SAID);
        evaluation.settle("tokens", 29);

        assertThat(tokensLeft(rules)).isEqualTo(95);
        assertThat(events.told).containsExactly("reserved llm 30 tokens", "settled llm 30 at 5");
    }

    @Test
    void evaluate_estimateMissing_isRefusedWith400AndCountsUnderNoRule() {
        RuleSet rules = rules(LLM);

        Evaluation refused = request(rules, null);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.holdsUntilEnd()).isFalse();
        assertThat(refused.refusal().orElseThrow().reason()).isEqualTo("the request has no header X-Max-Tokens;"
                + " rule 'llm' reserves it as the request's estimate in tokens, a whole number from 1 to 40");
        ProblemDetails problem = RateLimitResponse.of(refused).orElseThrow().problem();
        assertThat(problem.status()).isEqualTo(400);
        assertThat(problem.toJson()).isEqualTo("{\"type\":\"https://sluice.dev/problems/invalid-estimate\","
                + "\"title\":\"Invalid Estimate\",\"status\":400,\"detail\":\"The request has no header X-Max-Tokens;"
                + " rule 'llm' reserves it as the request's estimate in tokens, a whole number from 1 to 40. Nothing"
                + " was counted.\"}");
        Map<String, String> headers = new HashMap<>();
        RateLimitResponse.of(refused).orElseThrow().writeHeaders(HeaderStyle.BOTH, headers::put);
        assertThat(headers).isEmpty();
        assertThat(tokensLeft(rules)).isEqualTo(100);
        Rule rule = rules.rules().get(0);
        Policy requests = rule.requestLimits().orElseThrow().defaults();
        assertThat(local.execute(CounterKeys.prefix("llm", requests) + "key-1", Command.peek(requests,
                0)).remaining()).isEqualTo(20);
    }

    @Test
    void evaluate_estimateAboveItsMaxOrNotANumber_isRefusedNamingWhatCame() {
        RuleSet rules = rules(LLM);

        assertThat(request(rules, "41").refusal().orElseThrow().reason()).startsWith("the request's header"
                + " X-Max-Tokens is \"41\";");
        assertThat(request(rules, "0").refusal()).isPresent();
        assertThat(request(rules, "-3").refusal()).isPresent();
        assertThat(request(rules, "1e3").refusal()).isPresent();
        assertThat(tokensLeft(rules)).isEqualTo(100);
    }

    @Test
    void evaluate_estimateMissingUnderARuleWithADefault_reservesTheDefault() {
        RuleSet rules = rules(LLM.replace("\"max\": 40", "\"max\": 40, \"default\": 25"));

        Evaluation evaluation = request(rules, null);

        assertThat(evaluation.allowed()).isTrue();
        assertThat(evaluation.reservations().get(0).estimate()).isEqualTo(25);
        assertThat(tokensLeft(rules)).isEqualTo(75);
    }

    @Test
    void evaluate_requestLimitRejects_givesTheReservationBackWhole() {
        RuleSet rules = rules(LLM.replace("{\"permits\": 20, \"period\": \"1m\"}", "{\"permits\": 1,"
                + " \"period\": \"1m\"}"));
        request(rules, "10").end(header("X-Tokens-Used", "10"));

        Evaluation rejected = request(rules, "10");

        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.holdsUntilEnd()).isFalse();
        assertThat(tokensLeft(rules)).isEqualTo(90);
        assertThat(events.told).endsWith("reserved llm 10 tokens", "settled llm 10 at 0");
    }

    @Test
    void settleAbove_debtRefusesTheKeysNextRequestUntilTheRetryAfterItSays() {
        RuleSet rules = rules("""
                {"rules": [{"id": "llm", "match": {"paths": ["/complete"]},
                            "key": {"type": "header", "name": "X-Api-Key"}, "algorithm": "token_bucket",
                            "limits": [{"permits": 60, "period": "1m", "unit": "tokens"}],
                            "estimate": {"type": "header", "name": "X-Max-Tokens"},
                            "actual": {"type": "attribute", "name": "tokens"}}]}""");
        Evaluation first = request(rules, "10");
        first.end(new RequestEnd() {
            @Override
            public @Nullable String responseHeader(String name) {
                return null;
            }

            @Override
            public @Nullable Object attribute(String name) {
                return name.equals("tokens") ? 90 : null;
            }
        });

        // 90 of a full bucket of 60: 30 owed, and the next request's 10 need 40 tokens of refill at one a second.
        Evaluation refused = request(rules, "10");
        assertThat(refused.allowed()).isFalse();
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitResponse.of(refused).orElseThrow().writeHeaders(HeaderStyle.BOTH, headers::put);
        assertThat(headers).containsEntry("Retry-After", "40")
                .containsEntry("RateLimit-Policy", "\"llm:60 tokens/1m\";q=60;qu=\"tokens\";w=60")
                .containsEntry("RateLimit", "\"llm:60 tokens/1m\";r=0;t=31");
        time.advanceNanos(40 * SECOND - 1);
        assertThat(request(rules, "10").allowed()).isFalse();
        time.advanceNanos(1);
        assertThat(request(rules, "10").allowed()).isTrue();
    }

    @Test
    void settle_aboveTheDefaultMaximum_settlesAtTenTimesTheUnitsCapacity() {
        RuleSet rules = rules(LLM);
        Evaluation evaluation = request(rules, "30");

        evaluation.settle(1_300_000_000_000L);

        assertThat(rules.rules().get(0).unitCosts().orElseThrow().maxActual()).isEmpty();
        assertThat(evaluation.reservations().get(0).settled()).isEqualTo(OptionalLong.of(1_000));
        assertThat(events.told).containsExactly("reserved llm 30 tokens", "settled llm 30 at 1000");
        Rule rule = rules.rules().get(0);
        Policy tokens = rule.unitLimits().orElseThrow().defaults();
        assertThat(local.execute(CounterKeys.prefix(rule.id(), tokens) + "key-1", Command.peek(tokens, 1)).retryAfter())
                .as("a fixed window of 100 holds the 1,000 until it ends").isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void end_actualCostBeyondALong_settlesAtTheRulesMaxActual() {
        RuleSet rules = rules(LLM.replace("\"actual\"", "\"maxActual\": 250, \"actual\""));
        Evaluation evaluation = request(rules, "30");

        evaluation.end(header("X-Tokens-Used", "99999999999999999999999999"));

        assertThat(rules.rules().get(0).unitCosts().orElseThrow().maxActual()).isEqualTo(OptionalLong.of(250));
        assertThat(events.told).containsExactly("reserved llm 30 tokens", "settled llm 30 at 250");
    }

    @Test
    void parse_maxActualBelowTheEstimatesMaxOrWithoutAUnit_failsAtTheField() {
        assertThatThrownBy(() -> rules(LLM.replace("\"actual\"", "\"maxActual\": 39, \"actual\"")))
                .isInstanceOf(RulesException.class).hasMessageEndingWith("$.rules[0].maxActual: expected an integer"
                        + " from 40 (the estimate's max) to 4611686018427387903, got 39");
        assertThatThrownBy(() -> rules("""
                {"rules": [{"id": "r", "match": {"paths": ["/p"]}, "limits": [{"permits": 5, "period": "1m"}],
                            "maxActual": 10}]}"""))
                .isInstanceOf(RulesException.class).hasMessageEndingWith("$.rules[0].maxActual: expected none, as the"
                        + " rule has no limits in a unit other than requests, got 10");
    }

    @Test
    void annotations_unitEstimateAndActualCost_makeTheSameRuleAsTheFile() throws NoSuchMethodException {
        Rule rule = AnnotationRules.forMethod(Llm.class, Llm.class.getMethod("complete")).get(0);

        assertThat(rule.requestLimits().orElseThrow().defaults().limits())
                .containsExactly(Limit.of(20, Duration.ofMinutes(1))
                .named("llm:20/1m"));
        assertThat(rule.unitLimits().orElseThrow().defaults().unit()).isEqualTo("tokens");
        assertThat(rule.unitCosts().map(UnitCosts::estimate)).contains(Estimate.header("X-Max-Tokens").max(40)
                .orDefault(16));
        assertThat(rule.actualCost()).isEqualTo(ActualCost.header("X-Tokens-Used").keepingHeader());
    }

    @Test
    void annotations_estimateGivenTwiceDifferently_failNamingTheMethod() {
        assertThatThrownBy(() -> AnnotationRules.forMethod(Llm.class, Llm.class.getMethod("disagree")))
                .isInstanceOf(RulesException.class).hasMessageContaining("Llm#disagree")
                .hasMessageContaining("must agree on estimate");
    }

    @Test
    void annotations_unitWithoutEstimate_failNamingTheMethod() {
        assertThatThrownBy(() -> AnnotationRules.forMethod(Llm.class, Llm.class.getMethod("noEstimate")))
                .isInstanceOf(RulesException.class).hasMessageContaining("Llm#noEstimate")
                .hasMessageEndingWith("a rule with limits in tokens needs an estimate: where a request's tokens come"
                        + " from when it starts");
    }

    @Test
    void builder_leakyBucketInAUnit_isRefusedNamingWhy() {
        assertThatThrownBy(() -> Rule.builder("r").paths("/p").metered(Policy.of(Algorithm.LEAKY_BUCKET,
                Limit.of(10, Duration.ofSeconds(1))).inUnit("tokens")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GCRA can");
    }

    @Test
    void builder_estimateAboveTheUnitsCapacity_isRefused() {
        assertThatThrownBy(() -> Rule.builder("r").paths("/p").metered(Policy.of(Algorithm.GCRA,
                Limit.of(10, Duration.ofSeconds(1))).inUnit("bytes")).estimate(Estimate.contentLength().max(11))
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessage("estimate.max: expected at most"
                        + " 10 (the smallest capacity of the limits in its unit), got 11");
    }

    static final class Llm {
        @RateLimited(id = "llm", permits = 20, period = "1m", key = "header:X-Api-Key")
        @RateLimited(id = "llm", permits = 100, period = "1m", unit = "tokens", key = "header:X-Api-Key",
                estimate = "header:X-Max-Tokens", maxEstimate = 40, defaultEstimate = 16,
                actualCost = "header:X-Tokens-Used", keepActualHeader = true)
        public void complete() {
        }

        @RateLimited(id = "llm", permits = 100, period = "1m", unit = "tokens", estimate = "header:X-Max-Tokens")
        @RateLimited(id = "llm", permits = 20, period = "1m", estimate = "query:max_tokens")
        public void disagree() {
        }

        @RateLimited(id = "llm", permits = 100, period = "1m", unit = "tokens")
        public void noEstimate() {
        }
    }

    @Test
    void decision_ofARejectionByDebt_canSucceed() {
        Decision decision = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofSeconds(10))).inUnit("tokens")
                .apply(new long[][] {{-5, time.nanos(), 0}}, time.nanos(), 1, 0).decision();
        assertThat(decision.canSucceed()).isTrue();
        assertThat(decision.retryAfterNanos()).isEqualTo(6 * SECOND);
    }
}
