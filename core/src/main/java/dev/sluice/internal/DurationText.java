package dev.sluice.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations as written in rules and settings: {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h},
 * {@code 1d}, or ISO-8601 {@code PT1M}. Stateless and thread-safe.
 */
public final class DurationText {

    /** What a duration looks like, for messages. */
    public static final String EXPECTED = "a duration such as \"10s\", \"5m\", \"1h\" or \"PT1M\"";

    private static final Pattern SHORT = Pattern.compile("(\\d{1,15})(ns|us|ms|s|m|h|d)");

    private DurationText() {
    }

    /**
     * {@code duration} in the largest of the units {@code d}, {@code h}, {@code m}, {@code s}, {@code ms} and
     * {@code ns} that spells it whole, such as {@code 30s} or {@code 100ms}; {@link #parse} reads it back.
     */
    public static String format(Duration duration) {
        long nanos = duration.toNanos();
        String[] units = {"d", "h", "m", "s", "ms"};
        long[] sizes = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L};
        for (int i = 0; i < units.length; i++) {
            if (nanos != 0 && nanos % sizes[i] == 0) {
                return nanos / sizes[i] + units[i];
            }
        }
        return nanos + "ns";
    }

    /** The duration {@code text} spells; empty when it spells none. */
    public static Optional<Duration> parse(String text) {
        Matcher shortForm = SHORT.matcher(text);
        if (shortForm.matches()) {
            long amount = Long.parseLong(shortForm.group(1));
            try {
                return Optional.of(switch (shortForm.group(2)) {
                    case "ns" -> Duration.ofNanos(amount);
                    case "us" -> Duration.ofNanos(amount * 1_000);
                    case "ms" -> Duration.ofMillis(amount);
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    case "h" -> Duration.ofHours(amount);
                    default -> Duration.ofDays(amount);
                });
            } catch (ArithmeticException e) {
                // Fifteen digits of days overflow Duration's seconds ("999999999999999d"): not a duration, like any
                // other text that is none, rather than an exception the callers do not expect.
                return Optional.empty();
            }
        }
        if (text.startsWith("P") || text.startsWith("p")) {
            try {
                return Optional.of(Duration.parse(text));
            } catch (DateTimeParseException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
