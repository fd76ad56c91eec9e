package dev.sluice.rules;

import dev.sluice.rules.match.RequestView;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where a request's estimate of its cost in a rule's unit comes from when it starts: a fixed number, or read from the
 * request (a header such as {@code X-Max-Tokens}, a query parameter, {@code Content-Length}). The request reserves it
 * and settles its actual cost when it ends ({@link ActualCost}). An estimate is a whole number from 1 to the
 * {@linkplain #max(long) maximum} (by default, and at most, the smallest capacity of the rule's limits in that unit);
 * a request that lacks it or sends one that is not reserves the {@linkplain #orDefault(long) default} when there is
 * one, and is refused with 400 otherwise, counted under no rule. Immutable and thread-safe. See
 * {@code docs/design/costs.md}.
 */
public final class Estimate {

    /** Where an estimate comes from. */
    public enum Source {
        /** A request header field. */
        HEADER("header"),
        /** A query parameter. */
        QUERY("query"),
        /** The request's {@code Content-Length}: its body's bytes. */
        CONTENT_LENGTH("content-length"),
        /** The same number for every request. */
        FIXED("fixed");

        private final String text;

        Source(String text) {
            this.text = text;
        }

        /** As the rules file spells it: {@code header}, {@code query}, {@code content-length}, {@code fixed}. */
        public String text() {
            return text;
        }
    }

    /** What {@link #of} answers for a request whose estimate is invalid and which has no default: refuse it. */
    public static final long INVALID = -1;

    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,19}");
    private static final int SHOWN = 64;

    private final Source source;
    /** The header or query parameter; {@code Content-Length} for that source; empty for a fixed estimate. */
    private final String name;
    private final long fixed;
    /** 0 until set or bounded by a rule. */
    private final long max;
    /** 0 for none: an invalid estimate is refused. */
    private final long fallback;

    private Estimate(Source source, String name, long fixed, long max, long fallback) {
        this.source = source;
        this.name = name;
        this.fixed = fixed;
        this.max = max;
        this.fallback = fallback;
    }

    /**
     * Every request estimates {@code cost}.
     *
     * @throws IllegalArgumentException when {@code cost} is below 1
     */
    public static Estimate fixed(long cost) {
        return new Estimate(Source.FIXED, "", atLeastOne("value", cost), 0, 0);
    }

    /**
     * The request header field {@code name} gives the estimate, such as {@code X-Max-Tokens}.
     *
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public static Estimate header(String name) {
        return new Estimate(Source.HEADER, named(name), 0, 0, 0);
    }

    /**
     * The query parameter {@code name} gives the estimate, such as {@code max_tokens}.
     *
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public static Estimate query(String name) {
        return new Estimate(Source.QUERY, named(name), 0, 0, 0);
    }

    /** The request's {@code Content-Length} gives the estimate: for limits in bytes of request bodies. */
    public static Estimate contentLength() {
        return new Estimate(Source.CONTENT_LENGTH, "Content-Length", 0, 0, 0);
    }

    /**
     * This estimate, at most {@code cost}: a request that sends more is refused (or reserves the default). A rule
     * checks it against the smallest capacity of its limits in the unit, the default maximum.
     *
     * @throws IllegalArgumentException when {@code cost} is below 1
     */
    public Estimate max(long cost) {
        return new Estimate(source, name, fixed, atLeastOne("max", cost), fallback);
    }

    /**
     * This estimate, reserving {@code cost} for a request that lacks it or sends one that is not a whole number from 1
     * to the maximum; without a default such a request is refused with 400.
     *
     * @throws IllegalArgumentException when {@code cost} is below 1
     */
    public Estimate orDefault(long cost) {
        return new Estimate(source, name, fixed, max, atLeastOne("default", cost));
    }

    public Source source() {
        return source;
    }

    /** The header or query parameter named, {@code Content-Length} for that source; empty for a fixed estimate. */
    public String name() {
        return name;
    }

    /** The fixed estimate; empty for one read from the request. */
    public OptionalLong fixedCost() {
        return source == Source.FIXED ? OptionalLong.of(fixed) : OptionalLong.empty();
    }

    /** The largest estimate taken; empty until set, when a rule takes its limits' smallest capacity. */
    public OptionalLong max() {
        return max == 0 ? OptionalLong.empty() : OptionalLong.of(max);
    }

    /** What a request whose estimate is missing or invalid reserves; empty when such a request is refused. */
    public OptionalLong defaultCost() {
        return fallback == 0 ? OptionalLong.empty() : OptionalLong.of(fallback);
    }

    /**
     * This estimate as a rule whose limits in the unit can grant at most {@code capacity} at once takes it: its
     * maximum that capacity unless smaller.
     *
     * @throws InvalidValueException naming {@code estimate} and its member when the maximum, the fixed estimate or
     *     the default is above {@code capacity} (such an estimate could never be granted), or above the maximum
     */
    Estimate boundedBy(long capacity) {
        String capacityBound = "at most " + capacity + " (the smallest capacity of the limits in its unit)";
        if (max > capacity) {
            throw new InvalidValueException("estimate", "max", capacityBound, String.valueOf(max));
        }
        long bound = max == 0 ? capacity : max;
        String bounded = max == 0 ? capacityBound : "at most " + bound + " (the estimate's max)";
        if (fixed > bound) {
            throw new InvalidValueException("estimate", "value", bounded, String.valueOf(fixed));
        }
        if (fallback > bound) {
            throw new InvalidValueException("estimate", "default", bounded, String.valueOf(fallback));
        }
        return max == bound ? this : new Estimate(source, name, fixed, bound, fallback);
    }

    /**
     * The request's estimate: a whole number from 1 to the maximum, the default for a request whose estimate is missing
     * or invalid, or {@link #INVALID} when it has no default. Only for an estimate {@linkplain #boundedBy bounded} by
     * its rule.
     */
    public long of(RequestView request) {
        if (source == Source.FIXED) {
            return fixed;
        }
        long sent = parse(sent(request));
        return sent >= 1 ? sent : fallback == 0 ? INVALID : fallback;
    }

    /** Why the request's estimate is refused, for its 400 problem: what came, and what a rule of {@code unit} takes. */
    public String refusal(RequestView request, String ruleId, String unit) {
        @Nullable String sent = sent(request);
        String what = source == Source.QUERY ? "query parameter " + name : "header " + name;
        String came = sent == null ? "the request has no " + what
                : "the request's " + what + " is " + InvalidValueException.quoted(shown(sent));
        return came + "; rule '" + ruleId + "' reserves it as the request's estimate in " + unit
                + ", a whole number from 1 to " + max;
    }

    private @Nullable String sent(RequestView request) {
        return source == Source.QUERY ? request.queryParameter(name) : request.header(name);
    }

    /** The value as a whole number from 1 to the maximum; 0 when it is none. */
    private long parse(@Nullable String sent) {
        if (sent == null) {
            return 0;
        }
        String trimmed = sent.strip();
        if (!DIGITS.matcher(trimmed).matches()) {
            return 0;
        }
        try {
            long value = Long.parseLong(trimmed);
            return value <= max ? value : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** A value sent, cut short and with control characters shown as {@code ?}, for a message. */
    private static String shown(String sent) {
        StringBuilder shown = new StringBuilder(Math.min(sent.length(), SHOWN) + 3);
        for (int i = 0; i < sent.length() && i < SHOWN; i++) {
            char c = sent.charAt(i);
            shown.append(Character.isISOControl(c) ? '?' : c);
        }
        return sent.length() > SHOWN ? shown.append("...").toString() : shown.toString();
    }

    private static String named(String name) {
        if (name.isBlank()) {
            throw new InvalidValueException("estimate", "a non-empty name", InvalidValueException.quoted(name));
        }
        return name;
    }

    private static long atLeastOne(String field, long cost) {
        if (cost < 1) {
            throw new InvalidValueException("estimate", "a " + field + " of at least 1", String.valueOf(cost));
        }
        return cost;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Estimate other && source == other.source && name.equals(other.name)
                && fixed == other.fixed && max == other.max && fallback == other.fallback;
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, name, fixed, max, fallback);
    }

    @Override
    public String toString() {
        String from = source == Source.FIXED ? String.valueOf(fixed)
                : source.text() + (source == Source.CONTENT_LENGTH ? "" : " " + name);
        return "Estimate[" + from + (max == 0 ? "" : " max " + max) + (fallback == 0 ? "" : " default " + fallback)
                + "]";
    }
}
