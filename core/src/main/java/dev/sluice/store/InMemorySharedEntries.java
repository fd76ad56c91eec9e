package dev.sluice.store;

import dev.sluice.TimeSource;
import dev.sluice.internal.Durations;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** {@link SharedEntries} in this process's memory, expired on read. Thread-safe. */
final class InMemorySharedEntries implements SharedEntries {

    private record Entry(String value, long expiresAtNanos) {
    }

    private final TimeSource time;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();

    InMemorySharedEntries(TimeSource time) {
        this.time = time;
    }

    @Override
    public void put(String key, String value, Duration timeToLive) {
        entries.put(key, new Entry(value, Durations.saturatedAdd(time.nanos(), Math.max(1_000_000,
                timeToLive.toNanos()))));
    }

    @Override
    public Map<String, String> entries() {
        long now = time.nanos();
        entries.values().removeIf(entry -> entry.expiresAtNanos() - now <= 0);
        Map<String, String> live = new HashMap<>();
        entries.forEach((key, entry) -> live.put(key, entry.value()));
        return live;
    }
}
