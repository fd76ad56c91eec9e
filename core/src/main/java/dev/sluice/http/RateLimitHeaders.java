package dev.sluice.http;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.Quota;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Durations;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The header fields of a response under rate limits, for any HTTP stack (the adapter passes a sink that sets a
 * header): {@code RateLimit-Policy} and {@code RateLimit} as draft-ietf-httpapi-ratelimit-headers-10 and -11 define
 * them ({@code r}: the available quota; {@code t}: seconds until more quota is available, which is also the longest
 * truthful -11 "effective window", within which the client can use no more than {@code r}),
 * {@code X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset} of the most restrictive decision, and
 * {@code Retry-After} (seconds, at least 1) on a rejection that waiting can cure, never earlier than any rejecting
 * limit's {@code t}. A decision the failure policy made describes no counter and gets no counter fields. Policy names
 * are escaped so no name can inject a header. Thread-safe. Each field and why: {@code docs/design/http-contract.md}.
 */
public final class RateLimitHeaders {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** Room for a field of two items without growing the builder (a copy per growth). */
    static final int FIELD_CAPACITY = 96;

    private static final int MAX_CACHED_POLICIES = 1_024;
    private static final ConcurrentHashMap<Policy, String> POLICY_FIELDS = new ConcurrentHashMap<>();
    private static final String[] SMALL_NUMBERS = new String[1_024];

    static {
        Arrays.setAll(SMALL_NUMBERS, Integer::toString);
    }

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
        @Nullable String policies = null;
        @Nullable String counted = null;
        if (style.draft() && !limits.isEmpty()) {
            policies = policyField(limits, null);
            StringBuilder field = new StringBuilder(FIELD_CAPACITY);
            for (Decision decision : decisions) {
                appendRateLimitItem(field, decision, false);
            }
            counted = field.toString();
        }
        write(policies, counted, verdict, true, style, header);
    }

    /**
     * Writes the fields of {@code style} given the values of the draft's fields, made by the caller only when the
     * style has them.
     *
     * @param policies the {@code RateLimit-Policy} value; null when the style has no draft fields
     * @param counted the {@code RateLimit} value, empty when no decision counted; null as {@code policies}
     * @param retryKnown false when a concurrency limit rejected the request: no {@code Retry-After} then
     */
    static void write(@Nullable String policies, @Nullable String counted, Decision verdict, boolean retryKnown,
                      HeaderStyle style, BiConsumer<String, String> header) {
        if (policies != null) {
            header.accept("RateLimit-Policy", policies);
            if (counted != null && !counted.isEmpty()) {
                header.accept("RateLimit", counted);
            }
        }
        if (style.legacy() && !verdict.storeUnavailable()) {
            header.accept("X-RateLimit-Limit", number(verdict.limit()));
            header.accept("X-RateLimit-Remaining", number(verdict.remaining()));
            header.accept("X-RateLimit-Reset", number(seconds(verdict.resetAfterNanos())));
        }
        if (!verdict.allowed() && verdict.canSucceed() && retryKnown) {
            header.accept("Retry-After", number(retryAfterSeconds(verdict)));
        }
    }

    /**
     * {@code Retry-After} of a rejection: whole seconds rounded up, so never 0 when a wait is needed. Never earlier
     * than the rejection's {@code t}, since a {@link Decision} never has its next permit after its retry.
     */
    public static long retryAfterSeconds(Decision rejection) {
        return seconds(rejection.retryAfterNanos());
    }

    /**
     * The {@code RateLimit-Policy} items of {@code policy}, made once per policy: they depend on its limits alone, and
     * formatting them on every response was a good part of the header fields' cost. Value-equal policies (the same
     * rule after a reload) share one entry; the cache is emptied when it reaches {@value #MAX_CACHED_POLICIES} entries,
     * so rules built again and again (reloads, rules made per tenant) cannot grow it without bound.
     */
    static String policyField(Quota quota) {
        if (quota instanceof ConcurrencyLimit limit) {
            return concurrencyField(limit);
        }
        Policy policy = (Policy) quota;
        String field = POLICY_FIELDS.get(policy);
        if (field == null) {
            if (POLICY_FIELDS.size() >= MAX_CACHED_POLICIES) {
                POLICY_FIELDS.clear();
            }
            field = policyField(policy.limits(), policy.metered() ? policy.unit() : null);
            POLICY_FIELDS.put(policy, field);
        }
        return field;
    }

    /**
     * The {@code RateLimit-Policy} item of a concurrency limit: its quota in the draft's unit of concurrent requests,
     * and no window (the draft's {@code w} is optional; permits return when requests end, not per period).
     */
    static String concurrencyField(ConcurrencyLimit limit) {
        StringBuilder field = new StringBuilder(FIELD_CAPACITY);
        appendString(field, limit.name());
        return field.append(";q=").append(limit.permits()).append(";qu=\"concurrent-requests\"").toString();
    }

    /**
     * The {@code RateLimit-Policy} items of {@code limits}, in requests, or in {@code unit} ({@code qu}, the draft's
     * quota unit: its name as the rule gives it, such as {@code tokens}) when not null.
     */
    static String policyField(List<Limit> limits, @Nullable String unit) {
        StringBuilder field = new StringBuilder(FIELD_CAPACITY);
        for (Limit limit : limits) {
            separate(field);
            appendString(field, limit.name());
            field.append(";q=").append(limit.permits());
            if (unit != null) {
                field.append(";qu=");
                appendString(field, unit);
            }
            field.append(";w=").append(seconds(limit.periodNanos()));
        }
        return field.toString();
    }

    /**
     * Appends the {@code RateLimit} item of {@code decision}, {@code "name";r=remaining;t=seconds}, after a separator
     * when {@code field} has items; nothing for a decision of no counter ({@link Decision#storeUnavailable()}). A
     * concurrency limit's item has no {@code t} (optional in the draft): a permit returns when a request ends, which
     * nobody knows in advance.
     */
    static void appendRateLimitItem(StringBuilder field, Decision decision, boolean concurrency) {
        if (decision.storeUnavailable()) {
            return;
        }
        separate(field);
        appendString(field, decision.limitName());
        field.append(";r=").append(decision.remaining());
        if (!concurrency) {
            field.append(";t=").append(seconds(decision.nextPermitNanos()));
        }
    }

    /** {@code value} in decimal; the small numbers most fields carry (permits, seconds) made once, not per response. */
    private static String number(long value) {
        return value >= 0 && value < SMALL_NUMBERS.length ? SMALL_NUMBERS[(int) value] : Long.toString(value);
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
