package dev.sluice.rules;

import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import dev.sluice.rules.match.RequestEnd;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where a rule reads a request's actual cost in its unit when the request ends, to settle the estimate it reserved: a
 * response header field the application sets (which the adapter strips before the response leaves, unless the rule
 * keeps it), or a request attribute; or neither, when only the API settles ({@code Evaluation.settle}). A request that
 * ends without saying keeps its estimate. A value is a whole number, 0 or more, as a header field's text, or as an
 * attribute's {@code Long}, {@code Integer} or text; one above the rule's maximum ({@link UnitCosts#maxActualCost}) is
 * settled at that maximum, and anything else keeps the estimate; both are logged, at most once a minute per rule.
 * Immutable and thread-safe. See {@code docs/design/costs.md}.
 */
public final class ActualCost {

    /** Where an actual cost comes from. */
    public enum Source {
        /** Only the API: {@code Evaluation.settle}. */
        API("api"),
        /** A response header field the application sets. */
        HEADER("header"),
        /** A request attribute the application sets. */
        ATTRIBUTE("attribute");

        private final String text;

        Source(String text) {
            this.text = text;
        }

        /** The source as the rules file spells it. */
        public String text() {
            return text;
        }
    }

    /** Only the API settles; a request that ends without it keeps its estimate. */
    public static final ActualCost API_ONLY = new ActualCost(Source.API, "", false);

    /**
     * The largest actual cost a settle charges unless a rule or limit id says otherwise, in capacities of the limits
     * reserved under: {@value}.
     */
    public static final long DEFAULT_MAX_CAPACITIES = 10;

    private static final System.Logger LOG = System.getLogger(ActualCost.class.getName());
    private static final Pattern DIGITS = Pattern.compile("[0-9]+");
    private static final long WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final int SHOWN = 64;

    private final Source source;
    private final String name;
    private final boolean keep;
    /** When the next warning about an unreadable value may be logged (System.nanoTime); shared by equal copies. */
    private final AtomicLong nextWarning = new AtomicLong(Long.MIN_VALUE);

    private ActualCost(Source source, String name, boolean keep) {
        this.source = source;
        this.name = name;
        this.keep = keep;
    }

    /**
     * The response header field {@code name} gives the actual cost, such as {@code X-Tokens-Used}; stripped from the
     * response unless {@link #keepingHeader()}.
     *
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public static ActualCost header(String name) {
        return new ActualCost(Source.HEADER, named(name), false);
    }

    /**
     * The request attribute {@code name} gives the actual cost, set by the application before the request ends.
     *
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public static ActualCost attribute(String name) {
        return new ActualCost(Source.ATTRIBUTE, named(name), false);
    }

    /**
     * This header source, its field left on the response for the client to see.
     *
     * @throws IllegalStateException for a source that is not a header
     */
    public ActualCost keepingHeader() {
        if (source != Source.HEADER) {
            throw new IllegalStateException("only a response header is kept or stripped");
        }
        return new ActualCost(source, name, true);
    }

    public Source source() {
        return source;
    }

    /** The header field or attribute named; empty for {@link #API_ONLY}. */
    public String name() {
        return name;
    }

    /** Whether the response keeps the header field (only a header source can). */
    public boolean keepsHeader() {
        return keep;
    }

    /** The response header field the adapter captures; empty unless the source is a header. */
    public Optional<String> capturedHeader() {
        return source == Source.HEADER ? Optional.of(name) : Optional.empty();
    }

    /**
     * The largest actual cost a settle under {@code reserved} charges by default: {@value #DEFAULT_MAX_CAPACITIES}
     * times its capacity (the smallest of its limits'), at most {@link Limit#MAX_PERMITS}. A debt of it locks the key
     * for at most about {@value #DEFAULT_MAX_CAPACITIES} times its limits' refill time ({@code docs/design/costs.md}).
     */
    public static long defaultMax(Policy reserved) {
        long capacity = reserved.capacity();
        return capacity > Limit.MAX_PERMITS / DEFAULT_MAX_CAPACITIES ? Limit.MAX_PERMITS
                : capacity * DEFAULT_MAX_CAPACITIES;
    }

    /**
     * The actual cost the ended request says, under rule {@code ruleId}: a whole number, {@link Long#MAX_VALUE} for one
     * beyond a long (the rule's maximum then settles); empty when it says none, or something that is no whole number
     * (which is logged).
     */
    public OptionalLong of(RequestEnd end, String ruleId) {
        Object said = switch (source) {
            case API -> null;
            case HEADER -> end.responseHeader(name);
            case ATTRIBUTE -> end.attribute(name);
        };
        if (said == null) {
            return OptionalLong.empty();
        }
        long cost = -1;
        if (said instanceof Long || said instanceof Integer) {
            cost = ((Number) said).longValue();
        } else if (said instanceof CharSequence text && DIGITS.matcher(text.toString().strip()).matches()) {
            try {
                cost = Long.parseLong(text.toString().strip());
            } catch (NumberFormatException e) {
                // Digits only: a whole number beyond a long.
                cost = Long.MAX_VALUE;
            }
        }
        if (cost >= 0) {
            return OptionalLong.of(cost);
        }
        warn(ruleId, said);
        return OptionalLong.empty();
    }

    /** Logs an unreadable actual cost, at most once a minute per rule; the value is the application's, not a key. */
    private void warn(String ruleId, Object said) {
        long now = System.nanoTime();
        long next = nextWarning.get();
        if ((next == Long.MIN_VALUE || now - next >= 0) && nextWarning.compareAndSet(next, now + WARN_INTERVAL_NANOS)) {
            String text = String.valueOf(said);
            LOG.log(System.Logger.Level.WARNING, "Sluice rule '" + ruleId + "': the " + source.text() + " " + name
                    + " says an actual cost of " + (text.length() > SHOWN ? text.substring(0, SHOWN) + "..." : text)
                    + " (" + said.getClass().getSimpleName() + "), not a whole number of 0 or more; such requests keep"
                    + " their estimate (said at most once a minute)");
        }
    }

    private static String named(String name) {
        if (name.isBlank()) {
            throw new InvalidValueException("actual", "a non-empty name", InvalidValueException.quoted(name));
        }
        return name;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof ActualCost other && source == other.source && name.equals(other.name)
                && keep == other.keep;
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, name, keep);
    }

    @Override
    public String toString() {
        return "ActualCost[" + source.text() + (name.isEmpty() ? "" : " " + name) + (keep ? " kept" : "") + "]";
    }
}
