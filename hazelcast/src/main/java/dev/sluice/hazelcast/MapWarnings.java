package dev.sluice.hazelcast;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a store found its cluster doing otherwise than it configures its maps: each warning logged once at WARNING (a
 * client reconnecting finds the same again) and kept for the store's health. At most one warning for each map and way,
 * so it stays small. Thread-safe.
 */
final class MapWarnings {

    private final System.Logger log;
    private final Set<String> warnings = new LinkedHashSet<>();

    /** Warnings said in {@code log}: the store's, where its users look for its messages. */
    MapWarnings(System.Logger log) {
        this.log = log;
    }

    /** Logs {@code warning} unless it was found before, and keeps it. */
    void found(String warning) {
        boolean first;
        synchronized (warnings) {
            first = warnings.add(warning);
        }
        if (first) {
            log.log(System.Logger.Level.WARNING, warning);
        }
    }

    /** The warnings found so far, oldest first. */
    List<String> now() {
        synchronized (warnings) {
            return List.copyOf(warnings);
        }
    }
}
