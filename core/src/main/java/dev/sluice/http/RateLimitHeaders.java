package dev.sluice.http;

import dev.sluice.Decision;
import dev.sluice.Durations;
import dev.sluice.Limit;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The header fields of a response under rate limits, for any HTTP stack: the adapter passes a sink that sets a
 * header.
 *
 * <ul>
 *   <li>{@code RateLimit-Policy: "burst";q=10;w=1, "daily";q=1000;w=86400}: every limit that applied, with its
 *       quota (permits) and window (seconds);
 *   <li>{@code RateLimit: "burst";r=4;t=1}: per decision, the permits remaining and, as draft-ietf-httpapi-ratelimit-
 *       headers-10 defines {@code t}, the seconds (rounded up) until more quota is available: until the remaining
 *       permits grow by at least one ({@link Decision#nextPermitNanos()}); 0 when none is missing;
 *   <li>{@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining}, {@code X-RateLimit-Reset} (seconds until the limit
 *       is full again, rounded up): of the most restrictive decision;
 *   <li>{@code Retry-After} (seconds, rounded up, at least 1): on a rejection that waiting can cure; never earlier
 *       than the {@code t} of the deciding limit, as the draft asks, nor of any other rejecting limit (each waits no
 *       longer than the verdict).
 * </ul>
 *
 * <p>A decision the failure policy made because the store could not ({@link Decision#storeUnavailable()}) describes
 * no counter: it gets no {@code RateLimit} item and, as the verdict, no {@code X-RateLimit-*} fields, so a client is
 * never told of permits nobody counted.
 *
 * <p>Policy names become structured-field strings: characters outside printable ASCII are replaced by {@code ?},
 * quotes and backslashes escaped, so no name can inject a header. Stateless and thread-safe.
 */
public final class RateLimitHeaders {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private RateLimitHeaders() {
    }

    /**
     * Writes the fields for one response.
     *
     * @param limits every limit of every rule that applied, in order
     * @param decisions one decision per rule that applied
     * @param verdict the decision acted on (the most restrictive of {@code decisions})
     */
    public static void write(List<Limit> limits, List<Decision> decisions, Decision verdict, HeaderStyle style,
                             BiConsumer<String, String> header) {
        if (style.draft() && !limits.isEmpty()) {
            header.accept("RateLimit-Policy", policyField(limits));
            String counted = rateLimitField(decisions);
            if (!counted.isEmpty()) {
                header.accept("RateLimit", counted);
            }
        }
        if (style.legacy() && !verdict.storeUnavailable()) {
            header.accept("X-RateLimit-Limit", Long.toString(verdict.limit()));
            header.accept("X-RateLimit-Remaining", Long.toString(verdict.remaining()));
            header.accept("X-RateLimit-Reset", Long.toString(seconds(verdict.resetAfterNanos())));
        }
        if (!verdict.allowed() && verdict.canSucceed()) {
            header.accept("Retry-After", Long.toString(retryAfterSeconds(verdict)));
        }
    }

    /**
     * {@code Retry-After} of a rejection: whole seconds rounded up, so never 0 when a wait is needed. Never earlier
     * than the rejection's {@code t}, since a {@link Decision} never has its next permit after its retry.
     */
    public static long retryAfterSeconds(Decision rejection) {
        return seconds(rejection.retryAfterNanos());
    }

    static String policyField(List<Limit> limits) {
        StringBuilder field = new StringBuilder();
        for (Limit limit : limits) {
            separate(field);
            appendString(field, limit.name());
            field.append(";q=").append(limit.permits()).append(";w=").append(seconds(limit.periodNanos()));
        }
        return field.toString();
    }

    static String rateLimitField(List<Decision> decisions) {
        StringBuilder field = new StringBuilder();
        for (Decision decision : decisions) {
            if (decision.storeUnavailable()) {
                continue;
            }
            separate(field);
            appendString(field, decision.limitName());
            field.append(";r=").append(decision.remaining()).append(";t=")
                    .append(seconds(decision.nextPermitNanos()));
        }
        return field.toString();
    }

    /** Whole seconds, rounded up: a wait of 1 ns is 1 s, never 0. */
    private static long seconds(long nanos) {
        return Durations.ceilDiv(nanos, NANOS_PER_SECOND);
    }

    private static void separate(StringBuilder field) {
        if (field.length() > 0) {
            field.append(", ");
        }
    }

    /** An RFC 8941 sf-string: printable ASCII only, {@code "} and {@code \} escaped. */
    private static void appendString(StringBuilder field, String value) {
        field.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                field.append('\\').append(c);
            } else {
                field.append(c >= 0x20 && c < 0x7f ? c : '?');
            }
        }
        field.append('"');
    }
}
