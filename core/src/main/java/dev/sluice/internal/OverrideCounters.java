package dev.sluice.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Where the keys under override limits count, made once per distinct limits: a rule's or a limiter's counters of its
 * overrides. At most {@value #MAX} are kept; one more empties the cache (overrides are few, and a counter made again
 * is the same). Thread-safe.
 *
 * @param <L> the override limits
 * @param <C> what a counter is to its maker
 */
public final class OverrideCounters<L, C> {

    /** The most distinct override limits whose counters are kept made. */
    static final int MAX = 64;

    private final Map<L, C> made = new ConcurrentHashMap<>();
    private final Function<L, C> make;

    /** @param make the counter of some override limits */
    public OverrideCounters(Function<L, C> make) {
        this.make = make;
    }

    /** The counter of {@code limits}, made on first use: a plain read once it exists. */
    public C of(L limits) {
        C counter = made.get(limits);
        if (counter != null) {
            return counter;
        }
        if (made.size() >= MAX) {
            made.clear();
        }
        return made.computeIfAbsent(limits, make);
    }
}
