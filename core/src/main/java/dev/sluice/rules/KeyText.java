package dev.sluice.rules;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/*
 * Key values come from the client (headers, cookies, query parameters) and end up as counter keys in a shared map. So
 * each value is made unambiguous and short: "%", "|" and control characters are percent-escaped, so the parts of a
 * composite key, joined with "|", cannot be confused with one another; and a value longer than MAX_LENGTH is replaced
 * by a hash, so no client can make a key, or the store, arbitrarily large. Hashing reads at most MAX_HASHED characters.
 */

/** Turns attribute values into bounded, unambiguous counter key parts. Stateless and thread-safe. */
final class KeyText {

    static final int MAX_LENGTH = 128;
    private static final int MAX_HASHED = 65_536;

    private KeyText() {
    }

    static String bound(String value) {
        if (value.length() > MAX_LENGTH) {
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
        return result.length() > MAX_LENGTH ? hash(value) : result;
    }

    private static String hash(String value) {
        String hashed = value.length() > MAX_HASHED ? value.substring(0, MAX_HASHED) : value;
        byte[] digest = Sha256.of(hashed.getBytes(StandardCharsets.UTF_8),
                Integer.toString(value.length()).getBytes(StandardCharsets.US_ASCII));
        return "sha256:" + HexFormat.of().formatHex(digest, 0, 16);
    }
}
