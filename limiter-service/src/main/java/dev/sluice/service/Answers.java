package dev.sluice.service;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import dev.sluice.http.ProblemDetails;
import dev.sluice.http.RateLimitHeaders;
import dev.sluice.internal.Durations;
import dev.sluice.internal.json.JsonObject;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The bodies the limits endpoints answer, as the OpenAPI document describes them: an id's members, its counts, when
 * the next request fits, a slot, and the refusals with their problem documents. Instants are this service's clock
 * plus the store's wait, rounded up to the millisecond: never early. Stateless.
 */
final class Answers {

    private Answers() {
    }

    static JsonObject answer(LimitsFile.Entry entry, @Nullable String key) {
        JsonObject answer = new JsonObject().put("id", entry.id());
        return key == null ? answer : answer.put("key", key);
    }

    /**
     * The limit, and the permits {@code remaining} when a counter decided; when none did (the store failed and its
     * failure policy answered), {@code limiterUnavailable} instead, since the policy's numbers count nothing.
     */
    static JsonObject counts(JsonObject answer, Decision decision, long remaining) {
        answer.put("limit", decision.limit());
        return decision.storeUnavailable() ? answer.put("limiterUnavailable", true)
                : answer.put("remaining", remaining);
    }

    /**
     * The members of a peek for {@code cost} permits: the limit, the permits remaining now, and when a request of that
     * cost fits (the delay from now, and the instant).
     */
    static JsonObject next(JsonObject answer, Decision decision, long cost, long now) {
        long delay = decision.allowed() ? 0 : decision.retryAfterNanos();
        long remaining = decision.allowed() ? decision.remaining() + cost : decision.remaining();
        return counts(answer, decision, Math.min(decision.limit(), remaining)).put("delayMs", millisCeil(delay))
                .put("nextAt", epochMillisCeil(now + delay)).put("nextAtTime", rfc3339(now + delay));
    }

    /** A granted slot: wait {@code delayMs}, then send at {@code sendAt}. */
    static JsonObject slot(LimitsFile.Entry entry, @Nullable String key, Decision decision, long now) {
        long delay = decision.delayNanos();
        return counts(answer(entry, key).put("granted", true), decision, decision.remaining())
                .put("delayMs", millisCeil(delay)).put("sendAt", epochMillisCeil(now + delay))
                .put("sendAtTime", rfc3339(now + delay));
    }

    /** A refused acquire's members: nothing counted, and when the same request would be granted. */
    static JsonObject refusal(JsonObject answer, Decision decision, long now) {
        counts(answer.put("granted", false), decision, decision.remaining());
        if (decision.canSucceed()) {
            long retry = decision.retryAfterNanos();
            answer.put("retryAfterMs", millisCeil(retry)).put("nextAt", epochMillisCeil(now + retry))
                    .put("nextAtTime", rfc3339(now + retry));
        }
        return answer;
    }

    /** 429 (or 503 when the limiter could not decide) with {@code Retry-After} and a problem document. */
    static WebApplicationException rejected(LimitsFile.Entry entry, @Nullable String key, Decision decision,
                                                    long now, @Nullable String message) {
        ProblemDetails problem = ProblemDetails.of(List.of(decision), ProblemDetails.TOO_MANY_REQUESTS, message);
        String detail = problem.detail();
        if (message == null && decision.canSucceed() && !decision.storeUnavailable()) {
            detail = "No slot of limit '" + entry.id() + "' within the longest wait; the next is in "
                    + millisCeil(decision.retryAfterNanos()) + " ms. Nothing was counted.";
        }
        JsonObject extra = refusal(answer(entry, key), decision, now)
                .putRaw("policies", JsonObject.strings(problem.policies()));
        Response response = Problems.response(problem.status(), problem.type(), problem.title(), detail, extra);
        Response.ResponseBuilder builder = Response.fromResponse(response);
        if (decision.canSucceed()) {
            builder.header(HttpHeaders.RETRY_AFTER, RateLimitHeaders.retryAfterSeconds(decision));
        }
        return new WebApplicationException(builder.build());
    }

    /**
     * 429 when every permit is held (or 503 when the limiter could not decide), a problem document without
     * {@code Retry-After}: a permit returns when a holder releases it, which nobody knows.
     */
    static WebApplicationException permitRefused(LimitsFile.Entry entry, @Nullable String key,
                                                         Decision decision) {
        ProblemDetails problem = ProblemDetails.of(List.of(decision), false, ProblemDetails.TOO_MANY_REQUESTS,
                decision.storeUnavailable() ? null : "All " + decision.limit() + " permits of limit '" + entry.id()
                        + "' are held. Retry when a holder has released one. Nothing was taken.");
        JsonObject extra = counts(answer(entry, key).put("granted", false), decision, decision.remaining())
                .putRaw("policies", JsonObject.strings(problem.policies()));
        return new WebApplicationException(Problems.response(problem.status(), problem.type(), problem.title(),
                problem.detail(), extra));
    }

    /** The same problem with {@code prefix} before its detail, for an item of a batch. */
    static Response prefixed(Response response, String prefix) {
        String body = String.valueOf(response.getEntity());
        return Response.fromResponse(response).entity(body.replaceFirst("\"detail\":\"", "\"detail\":\""
                + java.util.regex.Matcher.quoteReplacement(prefix))).build();
    }

    static long millisCeil(long nanos) {
        return nanos == Decision.NEVER ? Long.MAX_VALUE : Durations.ceilDiv(nanos, Parameters.NANOS_PER_MILLI);
    }

    static long epochMillisCeil(long nanos) {
        return Math.floorDiv(nanos + Parameters.NANOS_PER_MILLI - 1, Parameters.NANOS_PER_MILLI);
    }

    static String rfc3339(long nanos) {
        return Instant.ofEpochMilli(epochMillisCeil(nanos)).toString();
    }

    static String describe(LimitsFile limits, long maxWaitNanos) {
        List<String> ids = new ArrayList<>();
        for (LimitsFile.Entry entry : limits.entries()) {
            JsonObject id = new JsonObject().put("id", entry.id()).put("perKey", entry.perKey());
            // One algorithm counts every limit of an id, in requests and in its unit: named once.
            entry.policy().or(entry::metered).ifPresent(policy -> id.put("algorithm", algorithm(policy)));
            entry.policy().ifPresent(policy -> id.putRaw("limits", limitsOf(policy)));
            entry.metered().ifPresent(units -> id.putRaw("metered", new JsonObject().put("unit", units.unit())
                    .putRaw("limits", limitsOf(units)).toString()));
            entry.concurrency().ifPresent(limit -> id.putRaw("concurrency", new JsonObject()
                    .put("name", limit.name()).put("permits", limit.permits())
                    .put("maxHoldMs", millisCeil(limit.maxHoldNanos())).toString()));
            ids.add(id.toString());
        }
        return new JsonObject().putRaw("limits", JsonObject.array(ids))
                .put("maxWaitMs", maxWaitNanos / Parameters.NANOS_PER_MILLI).toString();
    }

    /** {@code policy}'s limits as a JSON array: name, permits, period in milliseconds. */
    private static String limitsOf(Policy policy) {
        List<String> each = new ArrayList<>();
        for (Limit limit : policy.limits()) {
            each.add(new JsonObject().put("name", limit.name()).put("permits", limit.permits())
                    .put("periodMs", millisCeil(limit.periodNanos())).toString());
        }
        return JsonObject.array(each);
    }

    private static String algorithm(Policy policy) {
        return policy.algorithm().name().toLowerCase(Locale.ROOT);
    }
}
