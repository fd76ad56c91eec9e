package dev.sluice.internal.json;

import java.util.Collection;

/**
 * The JSON writer: an object written member by member, strings escaped (U+2028 and U+2029 too, so the text is also
 * safe inside JavaScript); nested objects and arrays are put as JSON already written. Used by one thread.
 */
public final class JsonObject {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final StringBuilder json = new StringBuilder(192).append('{');
    private boolean first = true;

    public JsonObject put(String name, String value) {
        appendString(name(name), value);
        return this;
    }

    public JsonObject put(String name, long value) {
        name(name).append(value);
        return this;
    }

    public JsonObject put(String name, boolean value) {
        name(name).append(value);
        return this;
    }

    /** A member whose value is JSON already written (an object or array). */
    public JsonObject putRaw(String name, String rawJson) {
        name(name).append(rawJson);
        return this;
    }

    private StringBuilder name(String name) {
        if (!first) {
            json.append(',');
        }
        first = false;
        appendString(json, name);
        return json.append(':');
    }

    /** The object written so far, closed. */
    @Override
    public String toString() {
        return json + "}";
    }

    /** {@code values}, each already JSON, as an array. */
    public static String array(Iterable<?> values) {
        StringBuilder array = new StringBuilder("[");
        for (Object value : values) {
            if (array.length() > 1) {
                array.append(',');
            }
            array.append(value);
        }
        return array.append(']').toString();
    }

    /** {@code values} as an array of JSON strings. */
    public static String strings(Collection<String> values) {
        return array(values.stream().map(JsonObject::quoted).toList());
    }

    /** {@code value} as a quoted, escaped JSON string. */
    public static String quoted(String value) {
        return appendString(new StringBuilder(value.length() + 2), value).toString();
    }

    private static StringBuilder appendString(StringBuilder json, String value) {
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
        return json.append('"');
    }
}
