package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProblemDetailsTest {

    @Test
    void toJson_rejection_namesThePoliciesAndTheRetryDelay() {
        Decision login = new Decision(false, 5, 0, 11_200_000_000L, 60_000_000_000L, 0, "login");
        Decision perIp = new Decision(false, 100, 0, 3_000_000_000L, 9_000_000_000L, 0, "per-ip");

        ProblemDetails problem = ProblemDetails.of(List.of(login, perIp), 429, null);

        assertThat(problem.toJson()).isEqualTo("{\"type\":\"https://sluice.dev/problems/rate-limited\","
                + "\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Rate limit 'login' exceeded. Retry in 12 seconds.\","
                + "\"policies\":[\"login\",\"per-ip\"],\"violated-policies\":[\"login\",\"per-ip\"],"
                + "\"retryAfter\":12}");
    }

    @Test
    void toJson_ruleMessageAndStatus_replaceTheDefaultsAndAreEscaped() {
        Decision decision = new Decision(false, 5, 0, 1, 1, 0, "quota");
        String json = ProblemDetails.of(List.of(decision), 503, "Slow \"down\"\n\u0001").toJson();
        assertThat(json).contains("\"title\":\"Request Rate Limited\",\"status\":503")
                .contains("\"detail\":\"Slow \\\"down\\\"\\n\\u0001\"")
                .contains("\"retryAfter\":1}");
    }

    @Test
    void toJson_costAboveCapacity_saysItCanNeverBeGrantedAndOmitsRetryAfter() {
        Decision never = new Decision(false, 10, 10, Decision.NEVER, 0, 0, "search");
        String json = ProblemDetails.of(List.of(never), 429, null).toJson();
        assertThat(json).contains("can never be granted").doesNotContain("retryAfter");
    }

    @Test
    void of_storeUnavailable_saysTheLimiterIsUnavailableNotThatALimitWasExceeded() {
        Decision unavailable = new Decision(false, 3, 0, 1_000_000_000L, 1_000_000_000L, 0, "3/1m", true);

        ProblemDetails problem = ProblemDetails.of(List.of(unavailable), 429, "custom rate-limit message");

        assertThat(problem.status()).isEqualTo(ProblemDetails.SERVICE_UNAVAILABLE);
        assertThat(problem.toJson()).isEqualTo("{\"type\":\"https://sluice.dev/problems/limiter-unavailable\","
                + "\"title\":\"Rate Limiter Unavailable\",\"status\":503,"
                + "\"detail\":\"The rate limiter is unavailable, and this service refuses requests it cannot count."
                + " Retry in 1 second.\",\"policies\":[],\"violated-policies\":[],\"retryAfter\":1}");
    }
}
