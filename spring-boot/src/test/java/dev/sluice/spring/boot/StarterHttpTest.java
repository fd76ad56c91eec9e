package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.metrics.MicrometerDecisionMetrics;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.spring.boot.testapp.LimitedApplication;
import dev.sluice.store.LimitOverride;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The starter in a real Spring Boot application on an embedded Tomcat, over real HTTP: the rules file and
 * {@code @RateLimited} controllers, merged as the Jersey binding merges them, Spring Security in front. Each test
 * is its own client ({@code X-Forwarded-For} from loopback, a trusted proxy), so they share one application.
 */
@SpringBootTest(classes = LimitedApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StarterHttpTest {

    @LocalServerPort
    int port;

    @Autowired
    RateLimitFilter filter;

    @Autowired
    MeterRegistry meters;

    private Http http() {
        return new Http(port);
    }

    @Test
    void rulesFile_threePerMinute_fourthIs429WithTheFiltersHeadersAndProblem() {
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> passed = http().get("/api/hello", "203.0.113.1");
            assertThat(passed.statusCode()).isEqualTo(200);
            assertThat(passed.headers().firstValue("X-RateLimit-Remaining")).hasValue(Integer.toString(2 - i));
        }

        HttpResponse<String> rejected = http().get("/api/hello", "203.0.113.1");

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"hello:3/1m\";q=3;w=60");
        assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
        assertThat(rejected.body()).contains("\"type\":\"https://sluice.dev/problems/rate-limited\"",
                "\"violated-policies\":[\"hello:3/1m\"]");
        assertThat(http().get("/api/hello", "203.0.113.2").statusCode()).as("another client").isEqualTo(200);
    }

    @Test
    void annotatedHandler_twoPerMinute_thirdIs429() {
        assertThat(http().get("/api/annotated", "203.0.113.10").statusCode()).isEqualTo(200);
        assertThat(http().get("/api/annotated", "203.0.113.10").statusCode()).isEqualTo(200);

        HttpResponse<String> rejected = http().get("/api/annotated", "203.0.113.10");

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.body()).contains("LimitedApplication$Greetings#annotated");
    }

    @Test
    void rulesFileRuleOfTheAnnotationsId_replacesItsLimits() {
        assertThat(http().get("/api/search", "203.0.113.20").statusCode()).isEqualTo(200);

        assertThat(http().get("/api/search", "203.0.113.20").statusCode()).as("1 per minute, not 100").isEqualTo(429);
    }

    @Test
    void pathParameterKey_countsEachItemApart() {
        assertThat(http().get("/api/items/1", "203.0.113.30").statusCode()).isEqualTo(200);
        assertThat(http().get("/api/items/1", "203.0.113.31").statusCode()).as("same item").isEqualTo(429);
        assertThat(http().get("/api/items/2", "203.0.113.30").statusCode()).as("another item").isEqualTo(200);
    }

    @Test
    void shadowAnnotation_countsAndNeverRejects() {
        for (int i = 0; i < 3; i++) {
            assertThat(http().get("/api/shadowed", "203.0.113.40").statusCode()).isEqualTo(200);
        }
        assertThat(meters.get(MicrometerDecisionMetrics.DECISIONS).tag("outcome", "shadow-rejected")
                .tag("rule", LimitedApplication.Greetings.class.getName() + "#shadowed").counter().count())
                .as("the two over the limit, counted as shadow rejections").isEqualTo(2);
    }

    @Test
    void classLevelAnnotation_oneRuleForItsMethods_exemptMethodUnlimited() {
        assertThat(http().get("/api/class/a", "203.0.113.50").statusCode()).isEqualTo(200);
        assertThat(http().get("/api/class/b", "203.0.113.50").statusCode()).isEqualTo(200);
        assertThat(http().get("/api/class/a", "203.0.113.50").statusCode()).isEqualTo(429);
        for (int i = 0; i < 3; i++) {
            assertThat(http().get("/api/class/free", "203.0.113.50").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void fileAndAnnotationRulesOnOneRequest_allOrNothing_theRejectedRequestTakesNothingFromTheFileRule() {
        HttpResponse<String> first = http().get("/api/together/one", "203.0.113.60");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit").orElseThrow()).contains("\"together:10/1m\";r=9");

        HttpResponse<String> rejected = http().get("/api/together/one", "203.0.113.60");

        assertThat(rejected.statusCode()).as("the annotation's 1 per minute").isEqualTo(429);
        assertThat(rejected.headers().firstValue("RateLimit").orElseThrow())
                .as("the file rule's count given back").contains("\"together:10/1m\";r=9");
    }

    @Test
    void concurrencyAnnotation_oneInFlight_secondIs429UntilTheFirstEnds() throws Exception {
        LimitedApplication.slowRelease = new CountDownLatch(1);
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(
                () -> http().get("/api/slow", "203.0.113.70"));
        awaitPermitHeld();

        HttpResponse<String> second = http().get("/api/slow", "203.0.113.70");

        assertThat(second.statusCode()).isEqualTo(429);
        assertThat(second.headers().firstValue("RateLimit-Policy").orElseThrow())
                .contains("qu=\"concurrent-requests\"");
        LimitedApplication.slowRelease.countDown();
        assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        // The client may read the whole answer before the filter's chain returns and the permit goes back.
        awaitPermitsHeld(0);
        assertThat(http().get("/api/slow", "203.0.113.70").statusCode()).as("the permit is back").isEqualTo(200);
    }

    private void awaitPermitHeld() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (permitsHeld() < 1) {
            assertThat(System.nanoTime()).as("a permit held within 10 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private void awaitPermitsHeld(double held) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (permitsHeld() != held) {
            assertThat(System.nanoTime()).as("%s permits held within 10 s", held).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private double permitsHeld() {
        return meters.find(MicrometerDecisionMetrics.PERMITS_HELD).gauges().stream()
                .mapToDouble(gauge -> gauge.value()).sum();
    }

    @Test
    void principalKey_filterAfterSpringSecurity_eachUserCountedApart() {
        assertThat(http().getAs("/api/me", "203.0.113.80", "alice", "alice-secret").body()).isEqualTo("alice");
        assertThat(http().getAs("/api/me", "203.0.113.80", "alice", "alice-secret").statusCode()).isEqualTo(200);
        assertThat(http().getAs("/api/me", "203.0.113.80", "alice", "alice-secret").statusCode()).isEqualTo(429);

        assertThat(http().getAs("/api/me", "203.0.113.80", "bob", "bob-secret").statusCode())
                .as("bob, from the same address, has his own count").isEqualTo(200);
        assertThat(http().get("/api/me", "203.0.113.80").statusCode()).as("Spring Security's answer")
                .isEqualTo(401);
    }

    @Test
    void startedFilter_saysItCountsLocallyWithTheFileAndTheAnnotations() {
        assertThat(filter.status().store()).isEqualTo("local");
        assertThat(filter.status().rulesSource()).isEqualTo("annotations and classpath:sluice-rules.json");
        assertThat(filter.rules().get().rule("search").orElseThrow().match().resourceMethods()).hasSize(1);
    }

    @Test
    void actuator_healthAndEndpoint_showTheStoreAndTheRulesInForce() {
        HttpResponse<String> health = http().get("/actuator/health/sluice", "203.0.113.90");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"", "\"store\":\"local\"",
                "\"rulesSource\":\"annotations and classpath:sluice-rules.json\"");

        HttpResponse<String> endpoint = http().get("/actuator/sluice", "203.0.113.90");
        String annotated = LimitedApplication.Greetings.class.getName() + "#annotated";
        assertThat(endpoint.statusCode()).isEqualTo(200);
        assertThat(endpoint.body()).contains("\"id\":\"hello\"", "\"limits\":[\"hello:3/1m\"]",
                "\"origin\":\"@RateLimited(id = \\\"" + annotated + "\\\") on " + annotated + "\"",
                "\"rulesVersion\":\"");
        assertThat(endpoint.body()).doesNotContain("\"rulesVersion\":\"none\"");
    }

    @Test
    void overrideBlockingAKey_blocksItAndTheEndpointListsItMasked() {
        filter.overrides().set(LimitOverride.forKey("hello", "203.0.113.110").blocked().lasting(Duration.ofMinutes(5))
                .reason("abuse report 17").setBy("test"));

        assertThat(http().get("/api/hello", "203.0.113.110").statusCode()).isEqualTo(429);
        String endpoint = http().get("/actuator/sluice", "203.0.113.111").body();
        assertThat(endpoint).contains("\"rule\":\"hello\"", "\"kind\":\"blocked\"", "\"reason\":\"abuse report 17\"")
                .doesNotContain("203.0.113.110");
    }

    @Test
    void unlimitedPath_noRateLimitHeaders() {
        HttpResponse<String> answer = http().get("/api/nothing-here", "203.0.113.100");

        assertThat(answer.statusCode()).isEqualTo(404);
        assertThat(answer.headers().firstValue("RateLimit")).isEmpty();
    }
}
