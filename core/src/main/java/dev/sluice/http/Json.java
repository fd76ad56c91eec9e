package dev.sluice.http;

/** The one piece of JSON writing the HTTP contract needs: a correctly escaped string. */
final class Json {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Json() {
    }

    static void appendString(StringBuilder json, String value) {
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
                    if (c < 0x20) {
                        json.append("\\u00").append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }
}
