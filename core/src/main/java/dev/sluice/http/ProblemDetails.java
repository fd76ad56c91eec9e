package dev.sluice.http;

import dev.sluice.Decision;
import dev.sluice.internal.json.JsonObject;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The body of a rejection: an RFC 9457 problem document of media type {@value #MEDIA_TYPE}, naming the violated
 * limits in {@code policies} (and {@code violated-policies}, the draft's name) and repeating {@code Retry-After} in
 * {@code retryAfter}. A request refused because the limiter could not decide ({@link Decision#storeUnavailable()})
 * gets the type {@value #UNAVAILABLE_TYPE}, status {@value #SERVICE_UNAVAILABLE} and no policies. Immutable and
 * thread-safe. Example and reasons: {@code docs/design/http-contract.md}.
 *
 * @param type the problem type: {@value #TYPE} or {@value #UNAVAILABLE_TYPE}
 * @param status the HTTP status, 429 unless a rule says otherwise (503 when the limiter is unavailable)
 * @param detail a sentence for the caller
 * @param policies the names of the violated limits
 * @param retryAfterSeconds seconds until a retry can succeed, or -1 when none can
 */
public record ProblemDetails(String type, int status, String detail, List<String> policies, long retryAfterSeconds) {

    /** The problem type of every rate-limit rejection. */
    public static final String TYPE = "https://sluice.dev/problems/rate-limited";

    /** The problem type of a request refused because the limiter could not decide. */
    public static final String UNAVAILABLE_TYPE = "https://sluice.dev/problems/limiter-unavailable";

    /**
     * The problem type of a request refused because it lacks the estimate of its cost a rule reserves, or sends one
     * that rule cannot take (status 400): nothing was counted.
     */
    public static final String INVALID_ESTIMATE_TYPE = "https://sluice.dev/problems/invalid-estimate";

    /** The status of a request refused for its estimate. */
    public static final int BAD_REQUEST = 400;

    /** The status of a request refused because the limiter could not decide. */
    public static final int SERVICE_UNAVAILABLE = 503;

    /** The media type of the body. */
    public static final String MEDIA_TYPE = "application/problem+json";

    public static final int TOO_MANY_REQUESTS = 429;

    public ProblemDetails {
        policies = List.copyOf(policies);
    }

    /**
     * The problem for a rejection.
     *
     * @param rejections the rejecting decisions (one per violated rule), the most restrictive first
     * @param status the status to answer, normally {@link #TOO_MANY_REQUESTS}; not used when the limiter was
     *     unavailable
     * @param message the detail to use instead of the generated one, or {@code null} for the generated one; not used
     *     when the limiter was unavailable
     */
    public static ProblemDetails of(List<Decision> rejections, int status, @Nullable String message) {
        return of(rejections, true, status, message);
    }

    /**
     * Like {@link #of(List, int, String)}; with {@code retryKnown} false (a concurrency limit rejected the request,
     * and no one knows when a request in flight ends) without {@code retryAfter}, and a detail that says to retry
     * once a request of the caller's ends.
     */
    public static ProblemDetails of(List<Decision> rejections, boolean retryKnown, int status,
                                    @Nullable String message) {
        Decision verdict = rejections.get(0);
        if (!retryKnown && !verdict.storeUnavailable()) {
            List<String> policies = rejections.stream().map(Decision::limitName).distinct().toList();
            String detail = message != null ? message : "Limit '" + verdict.limitName() + "' exceeded: "
                    + verdict.limit() + " requests in flight at most. Retry when one of them has ended.";
            return new ProblemDetails(TYPE, status, detail, policies, -1);
        }
        long retryAfter = verdict.canSucceed() ? RateLimitHeaders.retryAfterSeconds(verdict) : -1;
        if (verdict.storeUnavailable()) {
            String retry = retryAfter < 0 ? ""
                    : " Retry in " + retryAfter + (retryAfter == 1 ? " second." : " seconds.");
            return new ProblemDetails(UNAVAILABLE_TYPE, SERVICE_UNAVAILABLE, "The rate limiter is unavailable, and"
                    + " this service refuses requests it cannot count." + retry, List.of(), retryAfter);
        }
        List<String> policies = rejections.stream().map(Decision::limitName).distinct().toList();
        String detail = message != null ? message : generatedDetail(verdict, retryAfter);
        return new ProblemDetails(TYPE, status, detail, policies, retryAfter);
    }

    /**
     * The problem of a request refused for its estimate: {@value #BAD_REQUEST}, type {@value #INVALID_ESTIMATE_TYPE},
     * a detail of {@code reason} (what came, what the rule takes) and that nothing was counted, no policies.
     */
    public static ProblemDetails invalidEstimate(String reason) {
        return new ProblemDetails(INVALID_ESTIMATE_TYPE, BAD_REQUEST, Character.toUpperCase(reason.charAt(0))
                + reason.substring(1) + ". Nothing was counted.", List.of(), -1);
    }

    private static String generatedDetail(Decision verdict, long retryAfter) {
        String exceeded = "Rate limit '" + verdict.limitName() + "' exceeded.";
        if (retryAfter < 0) {
            return exceeded + " This request costs more than the limit's capacity of " + verdict.limit()
                    + " and can never be granted.";
        }
        return exceeded + " Retry in " + retryAfter + (retryAfter == 1 ? " second." : " seconds.");
    }

    /**
     * The RFC 9457 title, a summary of the problem type: "Rate Limiter Unavailable", or for a rate-limit rejection
     * "Too Many Requests" (429) or "Request Rate Limited" (any status a rule chose).
     */
    public String title() {
        if (type.equals(UNAVAILABLE_TYPE)) {
            return "Rate Limiter Unavailable";
        }
        if (type.equals(INVALID_ESTIMATE_TYPE)) {
            return "Invalid Estimate";
        }
        return status == TOO_MANY_REQUESTS ? "Too Many Requests" : "Request Rate Limited";
    }

    /** The JSON document. */
    public String toJson() {
        JsonObject json = new JsonObject().put("type", type).put("title", title()).put("status", status)
                .put("detail", detail);
        if (type.equals(INVALID_ESTIMATE_TYPE)) {
            return json.toString();
        }
        String names = JsonObject.strings(policies);
        json.putRaw("policies", names).putRaw("violated-policies", names);
        if (retryAfterSeconds >= 0) {
            json.put("retryAfter", retryAfterSeconds);
        }
        return json.toString();
    }
}
