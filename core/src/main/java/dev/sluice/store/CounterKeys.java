package dev.sluice.store;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;

/*
 * Key values come from the client (headers, cookies, query parameters) and end up as counter keys in a shared map. So
 * each value is made unambiguous and short: "%", "|" and control characters are percent-escaped, so the parts of a
 * composite key, joined with "|", cannot be confused with one another; and a value longer than MAX_LENGTH is replaced
 * by a hash, so no client can make a key, or the store, arbitrarily large. Hashing reads at most MAX_HASHED characters.
 *
 * A counter key is <id>@<fingerprint>|<key>: the fingerprint is of what the counter counts (the algorithm and limits,
 * the unit; a concurrency limit's permits, hold and name), so changed limits count afresh, and two policies of one id
 * never share a key's state.
 */

/**
 * The counter-key scheme every adapter and the engine use: a rule's (or limiter's) id and a fingerprint of what it
 * counts, then the request's key made of bounded, unambiguous parts ({@link #part}). Stateless and thread-safe.
 */
public final class CounterKeys {

    /** The longest key part kept as it is; a longer one becomes a hash of it. */
    public static final int MAX_PART_LENGTH = 128;
    private static final int MAX_HASHED = 65_536;
    private static final int FINGERPRINT_BYTES = 6;
    private static final int FINGERPRINT_HEX_DIGITS = 2 * FINGERPRINT_BYTES;
    private static final Pattern FINGERPRINT = Pattern.compile("[0-9a-f]{" + FINGERPRINT_HEX_DIGITS + "}");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:#$-]{0,199}");

    /** What {@link #idOf} answers, as a text, for a key of no id: an application's own counter. */
    public static final String NO_ID = "(other)";

    private CounterKeys() {
    }

    /**
     * {@code value} as a part of a counter key: {@code %}, {@code |} and control characters percent-escaped, and a
     * value longer than {@link #MAX_PART_LENGTH} once escaped replaced by {@code sha256:} and a hash of it.
     */
    public static String part(String value) {
        if (value.length() > MAX_PART_LENGTH) {
            return hash(value);
        }
        StringBuilder escaped = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            // All ISO controls: C1 (0x80 to 0x9f) as well, which a header value brings as obs-text bytes.
            boolean escape = c == '%' || c == '|' || Character.isISOControl(c);
            if (escape) {
                if (escaped == null) {
                    escaped = new StringBuilder(value.length() + 8).append(value, 0, i);
                }
                escaped.append('%').append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
            } else if (escaped != null) {
                escaped.append(c);
            }
        }
        String result = escaped == null ? value : escaped.toString();
        return result.length() > MAX_PART_LENGTH ? hash(value) : result;
    }

    private static String hash(String value) {
        String hashed = value.length() > MAX_HASHED ? value.substring(0, MAX_HASHED) : value;
        byte[] digest = Sha256.of(hashed.getBytes(StandardCharsets.UTF_8),
                Integer.toString(value.length()).getBytes(StandardCharsets.US_ASCII));
        return "sha256:" + HexFormat.of().formatHex(digest, 0, 16);
    }

    /**
     * The prefix of the counter keys of {@code id} under {@code policy}: {@code <id>@<fingerprint>|}. The fingerprint
     * is of what the counters count, the algorithm, the limits and the unit, so changed limits count afresh; not of
     * how the policy is distributed (leased, synchronised), which changes how permits are handed out, not what is
     * counted: a reload that turns leasing on or off keeps counting where it was.
     */
    public static String prefix(String id, Policy policy) {
        return prefix(id, "Policy[" + policy.algorithm() + " " + policy.limits()
                + (policy.metered() ? " in " + policy.unit() : "") + "]");
    }

    /**
     * The prefix of the permit keys of {@code id} under {@code limit}: {@code <id>@<fingerprint>|}, the fingerprint
     * of the limit (its permits, maximum hold and name), which no policy's text can be.
     */
    public static String prefix(String id, ConcurrencyLimit limit) {
        return prefix(id, limit.toString());
    }

    private static String prefix(String id, String counted) {
        byte[] digest = Sha256.of(counted.getBytes(StandardCharsets.UTF_8));
        return id + "@" + HexFormat.of().formatHex(digest, 0, FINGERPRINT_BYTES) + "|";
    }

    /**
     * The id a counter key ({@code <id>@<fingerprint>|<key>}) belongs to; empty for a key of another shape (an
     * application's own counters in the same store), so that such a key is never taken for an id.
     */
    public static Optional<String> idOf(String counterKey) {
        int at = counterKey.indexOf('@');
        int bar = at + 1 + FINGERPRINT_HEX_DIGITS;
        if (at < 0 || counterKey.length() <= bar || counterKey.charAt(bar) != '|'
                || !FINGERPRINT.matcher(counterKey).region(at + 1, bar).matches()) {
            return Optional.empty();
        }
        String id = counterKey.substring(0, at);
        return ID.matcher(id).matches() ? Optional.of(id) : Optional.empty();
    }
}
