package dev.sluice.service;

import dev.sluice.internal.Json;

/** A JSON object written member by member, strings escaped; what the service's answers need, nothing more. */
final class JsonObject {

    private final StringBuilder json = new StringBuilder(192).append('{');
    private boolean first = true;

    JsonObject put(String name, String value) {
        name(name);
        Json.appendString(json, value);
        return this;
    }

    JsonObject put(String name, long value) {
        name(name).append(value);
        return this;
    }

    JsonObject put(String name, boolean value) {
        name(name).append(value);
        return this;
    }

    /** A member whose value is JSON already written (an object or array). */
    JsonObject putRaw(String name, String rawJson) {
        name(name).append(rawJson);
        return this;
    }

    private StringBuilder name(String name) {
        if (!first) {
            json.append(',');
        }
        first = false;
        Json.appendString(json, name);
        return json.append(':');
    }

    @Override
    public String toString() {
        return json + "}";
    }

    /** {@code values}, each already JSON, as an array. */
    static String array(Iterable<?> values) {
        StringBuilder array = new StringBuilder("[");
        for (Object value : values) {
            if (array.length() > 1) {
                array.append(',');
            }
            array.append(value);
        }
        return array.append(']').toString();
    }
}
