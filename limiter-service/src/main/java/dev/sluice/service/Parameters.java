package dev.sluice.service;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the request parameters the service takes, strictly: a value it cannot take (an id without the limits an
 * endpoint counts, a token of another path, a cost out of range) is a 400 naming the parameter, what was expected and
 * what came, before anything is counted. Stateless.
 */
final class Parameters {

    static final long NANOS_PER_MILLI = 1_000_000L;
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,19}");
    private static final int SHOWN = 64;

    private Parameters() {
    }

    /**
     * The id's rate limits, for the endpoints that count requests alone (delay, increment, acquire, batches); 400
     * naming {@code id} for an id of a concurrency limit alone, and for an id with limits in a unit: those endpoints
     * know no cost in the unit, so that their answers would leave its limits and debts out (a delay saying "now" while
     * a reservation waits a minute). Such an id is reserved.
     */
    static Policy rates(LimitsFile.Entry entry) {
        entry.metered().ifPresent(units -> {
            throw Problems.invalid("id", "limit '" + entry.id() + "' counts " + units.unit() + " beside requests,"
                    + " which this endpoint cannot account for; reserve a call's estimate with POST limits/"
                    + entry.id() + (entry.perKey() ? "/{key}" : "") + "/" + LimitsResource.RESERVATIONS
                    + "?estimate= and settle what it cost");
        });
        return entry.policy().orElseThrow(() -> Problems.invalid("id", "limit '" + entry.id() + "' has no rate"
                + " limits, only a concurrency limit; take its permits with POST limits/" + entry.id() + "/"
                + LimitsResource.PERMITS));
    }

    /** The id's limits in a unit other than requests; 400 naming {@code id} for an id without them. */
    static Policy metered(LimitsFile.Entry entry) {
        return entry.metered().orElseThrow(() -> Problems.invalid("id", "limit '" + entry.id() + "' has no limits"
                + " in a unit other than requests to reserve; take a slot with POST limits/" + entry.id()
                + "/acquire"));
    }

    /** The id's concurrency limit; 400 naming {@code id} for an id without one. */
    static ConcurrencyLimit concurrency(LimitsFile.Entry entry) {
        return entry.concurrency().orElseThrow(() -> Problems.invalid("id", "limit '" + entry.id() + "' has no"
                + " concurrency limit and holds no permits"));
    }

    /** A 400 naming {@code parameter} unless the token's limit id and key, {@code what}'s, are those of the path. */
    static void requireThisPath(String parameter, String what, String heldId, Optional<String> heldKey,
                                        LimitsFile.Entry entry, @Nullable String key) {
        if (!heldId.equals(entry.id()) || !heldKey.equals(Tokens.keyOf(key))) {
            throw Problems.invalid(parameter, what + " of limit '" + heldId + "'" + heldKey.map(k -> k.startsWith("/")
                    ? " and another key" : " and key '" + k + "'").orElse("") + ", not of this path");
        }
    }

    /** {@code cost}: an integer from 1 to the limit's capacity; 1 when absent. */
    static long cost(@Nullable String text, LimitsFile.Entry entry) {
        if (text == null) {
            return 1;
        }
        long capacity = entry.policy().orElseThrow().capacity();
        long cost = DIGITS.matcher(text).matches() ? parse(text) : -1;
        if (cost < 1 || cost > capacity) {
            throw Problems.invalid("cost", "expected an integer from 1 to " + capacity + " (the capacity of limit '"
                    + entry.id() + "'), got " + shown(text));
        }
        return cost;
    }

    /** {@code estimate}: an integer from 1 to the capacity of the id's limits in its unit; required. */
    static long estimate(@Nullable String text, LimitsFile.Entry entry, Policy units) {
        long capacity = units.capacity();
        long estimate = text != null && DIGITS.matcher(text).matches() ? parse(text) : -1;
        if (estimate < 1 || estimate > capacity) {
            throw Problems.invalid("estimate", "expected an integer from 1 to " + capacity + " (the capacity of limit '"
                    + entry.id() + "' in " + units.unit() + "), got " + (text == null ? "none" : shown(text)));
        }
        return estimate;
    }

    /**
     * {@code cost} of a settle: the actual cost, an integer from 0 to the id's {@link LimitsFile.Entry#maxActual()}
     * (a larger one would lock the key for longer than the id allows); required.
     */
    static long actualCost(@Nullable String text, LimitsFile.Entry entry, Policy units) {
        long max = entry.maxActual();
        long cost = text != null && DIGITS.matcher(text).matches() ? parse(text) : -1;
        if (cost < 0 || cost > max) {
            throw Problems.invalid("cost", "expected the actual cost, an integer from 0 to " + max + " (the largest"
                    + " actual cost of limit '" + entry.id() + "' in " + units.unit() + ", its maxActual), got "
                    + (text == null ? "none" : shown(text)));
        }
        return cost;
    }

    /** {@code maxWaitMs}: whole milliseconds from 0 to the service's longest wait; that longest wait when absent. */
    static long maxWaitNanos(@Nullable String text, long maxWaitNanos) {
        if (text == null) {
            return maxWaitNanos;
        }
        long maxMillis = maxWaitNanos / NANOS_PER_MILLI;
        long millis = DIGITS.matcher(text).matches() ? parse(text) : -1;
        if (millis < 0 || millis > maxMillis) {
            throw Problems.invalid("maxWaitMs", "expected whole milliseconds from 0 to " + maxMillis
                    + " (the longest wait this service grants), got " + shown(text));
        }
        return millis * NANOS_PER_MILLI;
    }

    /**
     * {@code leaseMs}: whole milliseconds from 1 to the limit's maximum hold; that maximum hold when absent.
     */
    static long leaseNanos(@Nullable String text, ConcurrencyLimit limit) {
        if (text == null) {
            return limit.maxHoldNanos();
        }
        long maxMillis = limit.maxHoldNanos() / NANOS_PER_MILLI;
        long millis = DIGITS.matcher(text).matches() ? parse(text) : -1;
        if (millis < 1 || millis > maxMillis) {
            throw Problems.invalid("leaseMs", "expected whole milliseconds from 1 to " + maxMillis + " (the maximum"
                    + " hold of limit '" + limit.name() + "'), got " + shown(text));
        }
        return millis * NANOS_PER_MILLI;
    }

    /**
     * The age of a request made at {@code at} (epoch milliseconds, or an RFC 3339 date-time with an offset), in
     * nanoseconds before {@code nowNanos} on the service's clock: 0 when absent, and for an {@code at} at most
     * {@code maxFutureSkewNanos} ahead. Refused: a later {@code at}, and one older than the limit's longest window,
     * in which it would count nowhere.
     */
    static long ageNanos(@Nullable String text, LimitsFile.Entry entry, long nowNanos, long maxFutureSkewNanos) {
        if (text == null) {
            return 0;
        }
        long atNanos = instantNanos(text);
        // An instant centuries away makes the difference overflow: saturated, it is refused as too old or ahead.
        long age;
        try {
            age = Math.subtractExact(nowNanos, atNanos);
        } catch (ArithmeticException e) {
            age = atNanos < nowNanos ? Long.MAX_VALUE : Long.MIN_VALUE + 1;
        }
        if (age < 0) {
            if (-age > maxFutureSkewNanos) {
                throw Problems.invalid("at", shown(text) + " is " + Duration.ofNanos(-age).toMillis()
                        + " ms ahead of this service's clock; at most " + maxFutureSkewNanos / NANOS_PER_MILLI
                        + " ms ahead counts as now. A request is counted when it was made, not before");
            }
            return 0;
        }
        long window = entry.policy().orElseThrow().limits().stream().mapToLong(Limit::periodNanos).max().orElseThrow();
        if (age >= window) {
            throw Problems.invalid("at", shown(text) + " is " + Duration.ofNanos(age).toMillis()
                    + " ms ago, older than the " + window / NANOS_PER_MILLI + " ms window of limit '" + entry.id()
                    + "': it counts in no window any more");
        }
        return age;
    }

    private static long instantNanos(String text) {
        try {
            if (DIGITS.matcher(text).matches()) {
                return Math.multiplyExact(parse(text), NANOS_PER_MILLI);
            }
            Instant instant = OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
            return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
        } catch (DateTimeParseException | ArithmeticException e) {
            throw Problems.invalid("at", "expected epoch milliseconds such as 1767225600000 or an RFC 3339 date-time"
                    + " such as 2026-01-01T00:00:00.000Z, got " + shown(text));
        }
    }

    /**
     * Up to 19 digits as a long, {@link Long#MAX_VALUE} for those past it: every range checked after is below it, so
     * a number past a long is refused as out of range, naming its parameter (never an exception out of the service).
     */
    private static long parse(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    /** The value as the caller sent it, quoted and cut short. */
    static String shown(String text) {
        String cut = text.length() > SHOWN ? text.substring(0, SHOWN) + "..." : text;
        return JsonObject.quoted(cut);
    }
}
