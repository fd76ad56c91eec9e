package dev.sluice.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** The {@code name=value} arguments of a run, over its defaults: every option has one, so each is there. Immutable. */
record RunOptions(Map<String, String> values) {

    /** {@code defaults} with {@code args} in place; an argument naming no default is an error. */
    static RunOptions parse(Map<String, String> defaults, String[] args) {
        Map<String, String> values = new LinkedHashMap<>(defaults);
        for (String arg : args) {
            int equals = arg.indexOf('=');
            if (equals < 0 || !defaults.containsKey(arg.substring(0, equals))) {
                throw new IllegalArgumentException("expected name=value with a name among " + defaults.keySet()
                        + ", got " + arg);
            }
            values.put(arg.substring(0, equals), arg.substring(equals + 1));
        }
        return new RunOptions(Map.copyOf(values));
    }

    /** The option {@code name}: given, or its default. */
    String get(String name) {
        return Objects.requireNonNull(values.get(name), name);
    }

    /** The option's value split at blanks; empty for a blank value. */
    List<String> words(String name) {
        String value = get(name).trim();
        return value.isEmpty() ? List.of() : List.of(value.split("\\s+"));
    }

    @Override
    public String toString() {
        return new TreeMap<>(values).toString();
    }
}
