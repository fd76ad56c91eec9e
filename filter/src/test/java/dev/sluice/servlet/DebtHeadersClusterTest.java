package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.rules.Rule;
import dev.sluice.store.Command;
import dev.sluice.store.CounterKeys;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40.3 as it was found: a token-bucket rule of 60 tokens a minute on two filters, each on a member of one
 * cluster (each filter with its own cache of rejections, as every filter on a remote store has), on one manual clock;
 * a request reserves 10 and uses 90. While the debt is paid back, every refusal of either instance says in
 * {@code RateLimit} the remaining the key really has and the seconds until it grows (never 0 while it is refused),
 * never later than {@code Retry-After}; stepping by that {@code t}, the remaining grows each time, until a grant.
 */
@Tag("cluster")
class DebtHeadersClusterTest {

    private static final String LLM = """
            {"rules": [{"id": "llm", "match": {"paths": ["/c/**"]}, "key": {"type": "constant"},
                        "algorithm": "token_bucket", "limits": [{"permits": 60, "period": "1m", "unit": "tokens"}],
                        "estimate": {"type": "header", "name": "X-Max-Tokens"},
                        "actual": {"type": "header", "name": "X-Tokens-Used"}}]}
            """;
    /** The rule's policy, its limit named as the rules file names it: what its counter key's fingerprint is of. */
    private static final Policy TOKENS = Policy.of(Algorithm.TOKEN_BUCKET,
            Rule.defaultName(Limit.of(60, Duration.ofMinutes(1)), "llm", null, "tokens")).inUnit("tokens");
    private static final Pattern FIELDS = Pattern.compile(";r=(\\d+);t=(\\d+)");

    @TempDir
    Path dir;

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private final ManualTimeSource time = new ManualTimeSource();
    private List<HazelcastCounterStore> members = List.of();

    @AfterEach
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    private JettyServer instance(HazelcastCounterStore member) throws Exception {
        RateLimitFilter filter = RulesFileFilters.of(dir, LLM, settings -> settings.store(member).timeSource(time));
        PathBehaviourServlet servlet = new PathBehaviourServlet();
        return servers.add(JettyServer.start(context -> servlet.mount(context, filter, true)));
    }

    /** The tokens the key has now, as its owner counts them: the rule's one (constant) key. */
    private long realRemaining() {
        return members.get(0).execute(CounterKeys.prefix("llm", TOKENS) + "*", Command.peek(TOKENS, 0)).remaining();
    }

    @Test
    void filtersOnTwoMembers_refusalsWhileADebtIsPaidBack_sayTheRealRemainingAndWhenItGrows() throws Exception {
        members = ClusterSupport.startCluster(2, time);
        List<JettyServer> instances = List.of(instance(members.get(0)), instance(members.get(1)));
        assertThat(instances.get(0).get("/c/ok?used=90", "X-Max-Tokens", "10").statusCode()).isEqualTo(200);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (realRemaining() != 0) {
            assertThat(System.nanoTime()).as("the settle within 30 s").isLessThan(deadline);
            Thread.onSpinWait();
        }

        int refusals = 0;
        long previous = -1;
        long seconds = 0;
        while (true) {
            long step = Long.MAX_VALUE;
            boolean granted = false;
            for (JettyServer instance : instances) {
                HttpResponse<String> answer = instance.get("/c/ok?used=10", "X-Max-Tokens", "10");
                if (answer.statusCode() == 200) {
                    granted = true;
                    break;
                }
                assertThat(answer.statusCode()).isEqualTo(429);
                refusals++;
                Matcher fields = FIELDS.matcher(answer.headers().firstValue("RateLimit").orElseThrow());
                assertThat(fields.find()).isTrue();
                long r = Long.parseLong(fields.group(1));
                long t = Long.parseLong(fields.group(2));
                long retryAfter = Long.parseLong(answer.headers().firstValue("Retry-After").orElseThrow());
                assertThat(r).as("r %d s after the settle", seconds).isEqualTo(realRemaining())
                        .isGreaterThan(previous);
                assertThat(t).as("t %d s after the settle, %d remaining", seconds, r).isPositive()
                        .isLessThanOrEqualTo(retryAfter);
                step = Math.min(step, t);
            }
            if (granted) {
                break;
            }
            assertThat(refusals).as("refusals while 30 owed and 10 asked").isLessThanOrEqualTo(2 * 10);
            previous = realRemaining();
            time.advance(Duration.ofSeconds(step));
            seconds += step;
        }
        assertThat(seconds).as("granted once the debt and the estimate fit").isEqualTo(40);
    }
}
