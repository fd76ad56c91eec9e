package dev.sluice.internal;

/**
 * The one piece of JSON writing the HTTP contract and the limiter service need: a correctly escaped string (U+2028
 * and U+2029 escaped too, so the text is also safe inside JavaScript).
 */
public final class Json {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Json() {
    }

    /** Appends {@code value} to {@code json} as a quoted, escaped JSON string. */
    public static void appendString(StringBuilder json, String value) {
        json.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        json.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf])
                                .append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }
}
