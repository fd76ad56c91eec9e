package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.engine.Evaluation;
import dev.sluice.engine.RuleDecision;
import dev.sluice.engine.RuleSet;
import dev.sluice.http.HeaderStyle;
import dev.sluice.http.RateLimitResponse;
import dev.sluice.rules.Rule;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A request rejected by one matched rule consumes nothing from the others, on a real three-member cluster (TCP-IP on
 * loopback, multicast off) on one manual clock: the issue's scenario through {@link RuleSet#evaluate}, and many threads
 * on every member on two rules sharing a path. The counts are taken back on the keys' owners. One cluster serves
 * every test; each uses a path of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("cluster")
class AllOrNothingClusterTest {

    private static final int MEMBERS = 3;
    private static final int THREADS_PER_MEMBER = 8;
    private static final int ATTEMPTS = 10;

    private final ManualTimeSource time = new ManualTimeSource();
    private List<HazelcastCounterStore> members = List.of();

    @BeforeAll
    void startCluster() {
        members = ClusterSupport.startCluster(MEMBERS, time);
    }

    @AfterAll
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    private static RuleSet twoRules(String path, Policy bucket, Policy window) {
        return RuleSet.of(List.of(Rule.builder("bucket").paths(path).policy(bucket).build(),
                Rule.builder("window").paths(path).policy(window).build()), ClientAddresses.direct());
    }

    private static long remaining(CounterStore store, RuleDecision outcome) {
        return store.execute(outcome.counterKey(), Command.peek((Policy) outcome.quota(), 0)).remaining();
    }

    @Test
    void evaluate_issueScenarioOnACluster_takesNothingFromTheBucketAndIsGrantedAtRetryAfter() {
        RuleSet rules = twoRules("/issue", Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(4, Duration.ofMinutes(1))),
                Policy.of(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofSeconds(10))));
        for (int i = 0; i < 3; i++) {
            assertThat(rules.evaluate(TestRequest.get("/issue"), members.get(i)).allowed()).isTrue();
        }

        Evaluation fourth = rules.evaluate(TestRequest.get("/issue"), members.get(0));

        assertThat(fourth.allowed()).isFalse();
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitResponse.of(fourth).orElseThrow().writeHeaders(HeaderStyle.DRAFT, headers::put);
        assertThat(headers.get("RateLimit")).isEqualTo("\"4/1m\";r=1;t=15, \"3/10s\";r=0;t=10");
        assertThat(headers.get("Retry-After")).isEqualTo("10");
        assertThat(remaining(members.get(2), fourth.outcomes().get(0))).isEqualTo(1);

        time.advance(Duration.ofSeconds(10));
        Evaluation retried = rules.evaluate(TestRequest.get("/issue"), members.get(1));

        assertThat(retried.allowed()).isTrue();
        assertThat(retried.outcomes()).extracting(outcome -> outcome.decision().remaining()).containsExactly(0L, 2L);
    }

    /**
     * The window (30) rejects; the bucket (100) is never short even counting every request in flight: so exactly 30
     * are admitted, and the bucket holds exactly those 30, every rejected request having been taken back.
     */
    @Test
    void evaluate_manyThreadsOnEveryMember_bucketHoldsExactlyTheAdmittedRequests() throws Exception {
        RuleSet rules = twoRules("/hot", Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(100, Duration.ofMinutes(1))),
                Policy.of(Algorithm.FIXED_WINDOW, Limit.of(30, Duration.ofMinutes(1))));

        List<Evaluation> admitted = admitted(rules, "/hot");

        assertThat(admitted).hasSize(30);
        RuleDecision bucket = admitted.get(0).outcomes().get(0);
        RuleDecision window = admitted.get(0).outcomes().get(1);
        assertThat(remaining(members.get(0), bucket)).isEqualTo(100 - 30);
        assertThat(remaining(members.get(0), window)).isZero();
    }

    /**
     * Both rules can reject (the bucket of 40 is short while rejected requests are in flight): never more admitted
     * than either limit, each rule holds exactly the admitted requests once the threads are done (a permit is held only
     * between a count and its give-back), so requests sent one by one afterwards are admitted up to the smaller limit.
     */
    @Test
    void evaluate_manyThreadsBothRulesRejecting_neverOverAdmitAndLoseNothingOnceSettled() throws Exception {
        RuleSet rules = twoRules("/both", Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(40, Duration.ofMinutes(1))),
                Policy.of(Algorithm.SLIDING_WINDOW_COUNTER, Limit.of(30, Duration.ofMinutes(1))));

        List<Evaluation> admitted = admitted(rules, "/both");

        assertThat(admitted.size()).isLessThanOrEqualTo(30);
        RuleDecision bucket = admitted.get(0).outcomes().get(0);
        RuleDecision window = admitted.get(0).outcomes().get(1);
        assertThat(remaining(members.get(1), bucket)).isEqualTo(40 - admitted.size());
        assertThat(remaining(members.get(1), window)).isEqualTo(30 - admitted.size());
        int more = 0;
        while (rules.evaluate(TestRequest.get("/both"), members.get(more % MEMBERS)).allowed()) {
            more++;
        }
        assertThat(admitted.size() + more).isEqualTo(30);
        System.out.printf("ALL-OR-NOTHING both rejecting: admitted=%d concurrently, %d more one by one%n",
                admitted.size(), more);
    }

    /** {@value #THREADS_PER_MEMBER} threads on each member, started together, each evaluating the path. */
    private List<Evaluation> admitted(RuleSet rules, String path) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS_PER_MEMBER * MEMBERS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<Evaluation>>> threads = new ArrayList<>();
            for (HazelcastCounterStore member : members) {
                for (int t = 0; t < THREADS_PER_MEMBER; t++) {
                    threads.add(pool.submit(() -> {
                        start.await();
                        List<Evaluation> granted = new ArrayList<>();
                        for (int i = 0; i < ATTEMPTS; i++) {
                            Evaluation evaluation = rules.evaluate(TestRequest.get(path), member);
                            if (evaluation.allowed()) {
                                granted.add(evaluation);
                            }
                        }
                        return granted;
                    }));
                }
            }
            start.countDown();
            List<Evaluation> admitted = new ArrayList<>();
            for (Future<List<Evaluation>> thread : threads) {
                admitted.addAll(thread.get(120, TimeUnit.SECONDS));
            }
            return admitted;
        } finally {
            pool.shutdownNow();
        }
    }
}
