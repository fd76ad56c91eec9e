package dev.sluice.store;

import dev.sluice.TimeSource;
import java.time.Duration;
import java.util.Map;

/**
 * A small map of text entries that every instance sharing a store sees, each entry expiring unless written again:
 * where an instance publishes what others read (the console's snapshots). Not for counting: a write is last-writer-wins
 * and is not atomic with anything else. Thread-safe. See {@code docs/design/console.md}.
 */
public interface SharedEntries {

    /**
     * Writes {@code value} under {@code key}, kept for {@code timeToLive} (at least a millisecond) unless written
     * again.
     * May return before the write reached the cluster; never throws for a store that is unreachable (the write is
     * lost, and the entry expires).
     */
    void put(String key, String value, Duration timeToLive);

    /**
     * Every entry not expired, as seen now.
     *
     * @throws IllegalStateException when the store cannot be reached now
     */
    Map<String, String> entries();

    /** Entries this process alone sees, expiring by {@code time}: what a store with no cluster shares. */
    static SharedEntries inMemory(TimeSource time) {
        return new InMemorySharedEntries(time);
    }
}
