package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProblemDetailsTest {

    @Test
    void toJson_rejection_namesThePoliciesAndTheRetryDelay() {
        Decision login = Decision.rejected(5, "login", 11_200_000_000L).resetIn(60_000_000_000L).build();
        Decision perIp = Decision.rejected(100, "per-ip", 3_000_000_000L).resetIn(9_000_000_000L).build();

        ProblemDetails problem = ProblemDetails.of(List.of(login, perIp), 429, null);

        assertThat(problem.toJson()).isEqualTo("{\"type\":\"https://sluice.dev/problems/rate-limited\","
                + "\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Rate limit 'login' exceeded. Retry in 12 seconds.\","
                + "\"policies\":[\"login\",\"per-ip\"],\"violated-policies\":[\"login\",\"per-ip\"],"
                + "\"retryAfter\":12}");
    }

    @Test
    void toJson_ruleMessageAndStatus_replaceTheDefaultsAndAreEscaped() {
        Decision decision = Decision.rejected(5, "quota", 1).resetIn(1).build();
        String json = ProblemDetails.of(List.of(decision), 503, "Slow \"down\"\n\u0001").toJson();
        assertThat(json).contains("\"title\":\"Request Rate Limited\",\"status\":503")
                .contains("\"detail\":\"Slow \\\"down\\\"\\n\\u0001\"")
                .contains("\"retryAfter\":1}");
    }

    @Test
    void toJson_costAboveCapacity_saysItCanNeverBeGrantedAndOmitsRetryAfter() {
        Decision never = Decision.rejected(10, "search", Decision.NEVER).remaining(10).build();
        String json = ProblemDetails.of(List.of(never), 429, null).toJson();
        assertThat(json).contains("can never be granted").doesNotContain("retryAfter");
    }

    @Test
    void of_storeUnavailable_saysTheLimiterIsUnavailableNotThatALimitWasExceeded() {
        Decision unavailable = Decision.rejected(3, "3/1m", 1_000_000_000L).resetIn(1_000_000_000L).storeUnavailable()
                .build();

        ProblemDetails problem = ProblemDetails.of(List.of(unavailable), 429, "custom rate-limit message");

        assertThat(problem.status()).isEqualTo(ProblemDetails.SERVICE_UNAVAILABLE);
        assertThat(problem.toJson()).isEqualTo("{\"type\":\"https://sluice.dev/problems/limiter-unavailable\","
                + "\"title\":\"Rate Limiter Unavailable\",\"status\":503,"
                + "\"detail\":\"The rate limiter is unavailable, and this service refuses requests it cannot count."
                + " Retry in 1 second.\",\"policies\":[],\"violated-policies\":[],\"retryAfter\":1}");
    }
}
