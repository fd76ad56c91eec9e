package dev.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.http.HeaderStyle;
import dev.sluice.http.RateLimitResponse;
import dev.sluice.rules.Mode;
import dev.sluice.rules.Rule;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.RejectionCachingStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request rejected by one matched rule consumes nothing from the others, and its retry is when every matched rule
 * grants it (issue 25, item 6): the issue's two rules on one path, on a manual clock.
 */
class AllOrNothingTest {

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore local = new LocalCounterStore(time, 10_000, Runnable::run);

    @AfterEach
    void close() {
        local.close();
    }

    /** A token bucket of 4 per minute and a fixed window of 3 per 10 s, both on /p. */
    static RuleSet issueRules(Mode bucketMode) {
        return RuleSet.of(List.of(
                Rule.builder("bucket").paths("/p").mode(bucketMode)
                        .policy(Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(4, Duration.ofMinutes(1)))).build(),
                Rule.builder("window").paths("/p")
                        .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofSeconds(10)))).build()),
                ClientAddresses.direct());
    }

    static Map<String, String> headers(Evaluation evaluation) {
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitResponse.of(evaluation).orElseThrow().writeHeaders(HeaderStyle.BOTH, headers::put);
        return headers;
    }

    private Evaluation request(RuleSet rules, CounterStore store) {
        return rules.evaluate(TestRequest.get("/p"), store);
    }

    @Test
    void evaluate_fourthRequestOfTheIssue_takesNothingFromTheBucketAndIsGrantedAtRetryAfter() {
        RuleSet rules = issueRules(Mode.ENFORCE);
        for (int i = 0; i < 3; i++) {
            assertThat(request(rules, local).allowed()).isTrue();
        }

        Evaluation fourth = request(rules, local);

        assertThat(fourth.allowed()).isFalse();
        Map<String, String> headers = headers(fourth);
        assertThat(headers.get("RateLimit")).isEqualTo("\"4/1m\";r=1;t=15, \"3/10s\";r=0;t=10");
        assertThat(headers.get("Retry-After")).isEqualTo("10");
        assertThat(local.execute(fourth.outcomes().get(0).counterKey(),
                Command.peek((Policy) fourth.outcomes().get(0).quota(), 0))
                .remaining()).isEqualTo(1);

        time.advance(Duration.ofSeconds(Long.parseLong(headers.get("Retry-After"))));
        Evaluation retried = request(rules, local);

        assertThat(retried.allowed()).isTrue();
        assertThat(retried.outcomes()).extracting(outcome -> outcome.decision().remaining()).containsExactly(0L, 2L);
    }

    @Test
    void evaluate_rejectedRequestsRepeated_neverDrainTheRuleThatGrantsThem() {
        RuleSet rules = issueRules(Mode.ENFORCE);
        for (int i = 0; i < 3; i++) {
            request(rules, local);
        }

        for (int i = 0; i < 50; i++) {
            assertThat(request(rules, local).allowed()).isFalse();
        }

        time.advance(Duration.ofSeconds(10));
        assertThat(request(rules, local).allowed()).isTrue();
    }

    @Test
    void evaluate_bucketRejectingWhileTheWindowGrants_isGrantedAtTheBucketsRetry() {
        RuleSet rules = issueRules(Mode.ENFORCE);
        for (int i = 0; i < 3; i++) {
            request(rules, local);
        }
        time.advance(Duration.ofSeconds(10));
        request(rules, local);

        Evaluation rejected = request(rules, local);

        assertThat(rejected.outcomes()).extracting(outcome -> outcome.decision().allowed())
                .containsExactly(false, true);
        assertThat(rejected.outcomes().get(1).decision().remaining()).isEqualTo(2);
        long retry = Long.parseLong(headers(rejected).get("Retry-After"));
        assertThat(retry).isEqualTo(5);
        time.advance(Duration.ofSeconds(retry));
        assertThat(request(rules, local).allowed()).isTrue();
    }

    @Test
    void evaluate_twoRulesRejecting_retriesAfterTheLongerWait() {
        RuleSet rules = RuleSet.of(List.of(
                Rule.builder("minute").paths("/p")
                        .policy(Policy.of(Algorithm.GCRA, Limit.of(1, Duration.ofMinutes(1)))).build(),
                Rule.builder("window").paths("/p")
                        .policy(Policy.of(Algorithm.SLIDING_WINDOW_LOG, Limit.of(1, Duration.ofSeconds(10)))).build()),
                ClientAddresses.direct());
        request(rules, local);

        Evaluation both = request(rules, local);

        assertThat(both.outcomes()).extracting(outcome -> outcome.decision().allowed()).containsExactly(false, false);
        long retry = Long.parseLong(headers(both).get("Retry-After"));
        assertThat(retry).isEqualTo(60);
        time.advance(Duration.ofSeconds(retry - 1));
        assertThat(request(rules, local).allowed()).isFalse();
        time.advance(Duration.ofSeconds(1));
        assertThat(request(rules, local).allowed()).isTrue();
    }

    /** Shadow mode says what would happen were the rule enforced: a request another rule rejects never happened. */
    @Test
    void evaluate_rejectedByAnEnforcingRule_takesTheRequestBackFromShadowRulesToo() {
        RuleSet rules = issueRules(Mode.SHADOW);
        for (int i = 0; i < 3; i++) {
            request(rules, local);
        }

        Evaluation fourth = request(rules, local);

        assertThat(fourth.allowed()).isFalse();
        assertThat(fourth.outcomes().get(0).decision().remaining()).isEqualTo(1);
    }

    /** A shadow rule never rejects, so what it would reject proceeds, and the enforcing rules count it. */
    @Test
    void evaluate_rejectedOnlyByAShadowRule_keepsTheEnforcingRulesCount() {
        RuleSet rules = RuleSet.of(List.of(
                Rule.builder("shadow").paths("/p").mode(Mode.SHADOW)
                        .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(1, Duration.ofSeconds(10)))).build(),
                Rule.builder("window").paths("/p")
                        .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofSeconds(10)))).build()),
                ClientAddresses.direct());
        request(rules, local);

        Evaluation second = request(rules, local);

        assertThat(second.allowed()).isTrue();
        assertThat(second.shadowRejected()).isTrue();
        assertThat(second.outcomes().get(1).decision().remaining()).isEqualTo(1);
    }

    @Test
    void evaluate_throughTheFailurePolicyAndRejectionCache_takesTheRequestBackFromTheRemoteStore() {
        CounterStore wrapped = new RejectionCachingStore(
                FailurePolicyStore.rejecting(local, Duration.ofSeconds(5)), time, 100);
        RuleSet rules = issueRules(Mode.ENFORCE);
        for (int i = 0; i < 3; i++) {
            request(rules, wrapped);
        }

        Evaluation fourth = request(rules, wrapped);
        Evaluation fifth = request(rules, wrapped);

        assertThat(fourth.allowed()).isFalse();
        assertThat(fifth.allowed()).isFalse();
        assertThat(fifth.outcomes().get(0).decision().remaining()).isEqualTo(1);
        time.advance(Duration.ofSeconds(10));
        assertThat(request(rules, wrapped).allowed()).isTrue();
    }

    /** A store that cannot take back (a count answered as kept) keeps: the granting rule keeps the count. */
    @Test
    void evaluate_storeThatCannotTakeBack_keepsTheCount() {
        CounterStore foreign = new CounterStore() {
            @Override
            @SuppressWarnings("unchecked") // a count answers a Counted
            public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
                if (command instanceof Command.Count count) {
                    return (CompletionStage<R>) local.executeAsync(key, Command.decide(count.policy(), count.cost(),
                            count.maxDelayNanos())).thenApply(Counted::kept);
                }
                return local.executeAsync(key, command);
            }

            @Override
            public void close() {
            }
        };
        RuleSet rules = issueRules(Mode.ENFORCE);
        for (int i = 0; i < 3; i++) {
            request(rules, foreign);
        }

        Evaluation fourth = request(rules, foreign);

        assertThat(fourth.allowed()).isFalse();
        assertThat(fourth.outcomes().get(0).decision().remaining()).isEqualTo(0);
    }

    /**
     * The servlet filter's evaluation, then the Jersey binding's rule rejecting: the grants the filter counted with
     * others come back too.
     */
    @Test
    void evaluate_laterAdapterRuleRejects_takesBackTheEarlierEvaluationsGrants() {
        RuleSet filterRules = RuleSet.of(List.of(
                Rule.builder("bucket").paths("/p")
                        .policy(Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(4, Duration.ofMinutes(1)))).build(),
                Rule.builder("wide").paths("/**")
                        .policy(Policy.of(Algorithm.SLIDING_WINDOW_COUNTER, Limit.of(100, Duration.ofMinutes(1))))
                        .build()),
                ClientAddresses.direct());
        RuleSet resourceRules = RuleSet.of(List.of(Rule.builder("window").paths("/p")
                .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(1, Duration.ofSeconds(10)))).build()),
                ClientAddresses.direct());
        resourceRules.evaluate(TestRequest.get("/p"), local, filterRules.evaluate(TestRequest.get("/p"), local));

        Evaluation first = filterRules.evaluate(TestRequest.get("/p"), local);
        Evaluation second = resourceRules.evaluate(TestRequest.get("/p"), local, first);

        assertThat(first.outcomes().get(0).decision().remaining()).isEqualTo(2);
        assertThat(second.allowed()).isFalse();
        assertThat(second.outcomes()).extracting(outcome -> outcome.decision().remaining()).containsExactly(3L, 99L,
                0L);
    }
}
