package dev.sluice.console;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/*
 * Space-saving (Metwally, Agrawal, El Abbadi 2005): at most `capacity` counters; a key not counted takes the smallest
 * counter's place and inherits its count as its error. Any key counted more than total/capacity times is among the
 * counters, and a counter's count overstates its key's true count by at most its error. So 10,000 active keys cost
 * `capacity` entries, and the keys that matter (the most limited) stay. See docs/design/console.md.
 */

/** The keys counted most often, kept in bounded memory (space-saving). Thread-safe: one lock, taken per count. */
final class TopKeys {

    /** One key's count: at least {@code count - error} and at most {@code count} events were the key's. */
    record Entry(String key, long count, long error) {
    }

    private static final class Counter {
        long count;
        long error;
    }

    private final int capacity;
    private final Map<String, Counter> counters;

    TopKeys(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
        this.counters = new HashMap<>(capacity * 2);
    }

    /** Counts one event of {@code key}. */
    synchronized void add(String key) {
        Counter counter = counters.get(key);
        if (counter == null) {
            counter = counters.size() < capacity ? new Counter() : evictSmallest();
            counters.put(key, counter);
        }
        counter.count++;
    }

    /** Removes the smallest counter and returns it, its count kept as the error of the key that takes it. */
    private Counter evictSmallest() {
        String smallest = Collections.min(counters.entrySet(),
                Comparator.comparingLong((Map.Entry<String, Counter> entry) -> entry.getValue().count)).getKey();
        Counter counter = Objects.requireNonNull(counters.remove(smallest));
        counter.error = counter.count;
        return counter;
    }

    /** The {@code limit} keys counted most, most first. */
    synchronized List<Entry> top(int limit) {
        List<Entry> all = new ArrayList<>(counters.size());
        counters.forEach((key, counter) -> all.add(new Entry(key, counter.count, counter.error)));
        all.sort(Comparator.comparingLong(Entry::count).reversed().thenComparing(Entry::key));
        return List.copyOf(all.subList(0, Math.min(limit, all.size())));
    }
}
