package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.metrics.MicrometerDecisionMetrics;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.spring.boot.guarded.GuardedApplication;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Credential guessing against a real Spring Boot application whose logins Spring Security checks (form login and HTTP
 * basic), with {@code sluice.before-security.rules}: the filter before the security chain counts every attempt, so an
 * address that keeps guessing gets {@code 429}s once its limit (5 a minute) is spent, whatever Spring Security would
 * have answered. The rules after the chain still count what they count ({@code DefaultOrderFailedLoginsTest} shows the
 * same guessing unlimited without the property). Each test is its own client ({@code X-Forwarded-For} from loopback,
 * a trusted proxy).
 */
@SpringBootTest(classes = GuardedApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"sluice.before-security.rules=classpath:before-security-rules.json",
                "sluice.rules=classpath:guarded-rules.json"})
class BeforeSecurityHttpTest {

    private static final int GUESSES = 10;
    private static final int LIMIT = 5;

    @LocalServerPort
    int port;

    @Autowired
    BeforeSecurityFilter beforeSecurity;

    @Autowired
    RateLimitFilter afterSecurity;

    @Autowired
    MeterRegistry meters;

    private Http http() {
        return new Http(port);
    }

    @Test
    void formLogin_tenWrongPasswordsFromOneAddress_fiveRedirectedToTheErrorThenFive429s() {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < GUESSES; i++) {
            HttpResponse<String> answer = http().postForm("/login", "203.0.113.1",
                    "username=alice&password=guess-" + i);
            statuses.add(answer.statusCode());
            if (answer.statusCode() == 302) {
                assertThat(answer.headers().firstValue("Location").orElseThrow()).endsWith("/login?error");
            }
        }

        assertThat(statuses.subList(0, LIMIT)).as("Spring Security's answers").containsOnly(302);
        assertThat(statuses.subList(LIMIT, GUESSES)).as("the 429s").hasSize(GUESSES - LIMIT).containsOnly(429);
        assertThat(http().postForm("/login", "203.0.113.1", "username=alice&password=alice-secret").statusCode())
                .as("even the right password, from the guessing address").isEqualTo(429);
        HttpResponse<String> other = http().postForm("/login", "203.0.113.2", "username=alice&password=alice-secret");
        assertThat(other.statusCode()).as("another address logs in").isEqualTo(302);
        assertThat(other.headers().firstValue("Location").orElseThrow()).doesNotContain("error");
    }

    @Test
    void httpBasic_tenWrongPasswordsFromOneAddress_five401sThenFive429sWithTheRulesHeaders() {
        List<HttpResponse<String>> answers = new ArrayList<>();
        for (int i = 0; i < GUESSES; i++) {
            answers.add(http().getAs("/api/me", "203.0.113.3", "alice", "guess-" + i));
        }

        assertThat(answers.subList(0, LIMIT)).as("Spring Security's answers")
                .allSatisfy(answer -> assertThat(answer.statusCode()).isEqualTo(401));
        assertThat(answers.subList(LIMIT, GUESSES)).as("the 429s").hasSize(GUESSES - LIMIT)
                .allSatisfy(answer -> assertThat(answer.statusCode()).isEqualTo(429));
        HttpResponse<String> limited = answers.get(GUESSES - 1);
        assertThat(limited.headers().firstValue("RateLimit-Policy")).hasValue("\"credential-checks:5/1m\";q=5;w=60");
        assertThat(limited.headers().firstValue("Retry-After")).isPresent();
        assertThat(http().getAs("/api/me", "203.0.113.4", "alice", "alice-secret").body())
                .as("another address, the right password").isEqualTo("alice");
    }

    @Test
    void requestHeldForItsPermitBeforeSecurity_thenCountedByTheRulesAfterIt() throws Exception {
        GuardedApplication.heldRelease = new CountDownLatch(1);
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(
                () -> http().get("/api/held", "203.0.113.5"));
        awaitPermitHeld();
        CompletableFuture<HttpResponse<String>> second = CompletableFuture.supplyAsync(
                () -> http().get("/api/held", "203.0.113.5"));
        awaitWaiting();

        GuardedApplication.heldRelease.countDown();

        assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        HttpResponse<String> afterItsWait = second.get(30, TimeUnit.SECONDS);
        assertThat(afterItsWait.statusCode()).as("the rule after Spring Security, 1 a minute").isEqualTo(429);
        assertThat(afterItsWait.body()).contains("\"violated-policies\":[\"held-after:1/1m\"]");
    }

    /** Waits until the first request holds its permit before Spring Security (at most 10 s). */
    private void awaitPermitHeld() throws InterruptedException {
        awaitThat(() -> meters.find(MicrometerDecisionMetrics.PERMITS_HELD).tag("rule", "held-one-at-a-time")
                .gauges().stream().mapToDouble(gauge -> gauge.value()).sum() >= 1, "a permit held");
    }

    /** Waits until a request waits for its permit before Spring Security (at most 10 s). */
    private void awaitWaiting() throws InterruptedException {
        awaitThat(() -> beforeSecurity.filter().waitingForPermits() >= 1, "a request waiting");
    }

    private static void awaitThat(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what + " within 10 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    @Test
    void bothFilters_startedWithTheirOwnRules_oneStore() {
        RateLimitFilter before = beforeSecurity.filter();
        assertThat(before.status().rulesSource()).isEqualTo("classpath:before-security-rules.json");
        assertThat(afterSecurity.status().rulesSource()).isEqualTo("classpath:guarded-rules.json");
        assertThat(before.store()).isSameAs(afterSecurity.store());
    }
}
