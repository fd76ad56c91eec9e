package dev.sluice.rules.match;

import dev.sluice.rules.ActualCost;
import org.jspecify.annotations.Nullable;

/**
 * What the rules see of a request when it ends, to settle its reservations at their actual cost
 * ({@link ActualCost}): the response header fields the application set that a rule reads (which the adapter captures,
 * and strips from the response unless the rule keeps them), and the request's attributes. Adapters implement it over
 * their request; used by one thread at a time.
 */
public interface RequestEnd {

    /** A request that ended saying nothing: every reservation keeps its estimate. */
    RequestEnd NOTHING_SAID = new RequestEnd() {
        @Override
        public @Nullable String responseHeader(String name) {
            return null;
        }

        @Override
        public @Nullable Object attribute(String name) {
            return null;
        }
    };

    /**
     * The last value the application gave the response header field {@code name} (case-insensitive); null when it
     * gave none.
     */
    @Nullable String responseHeader(String name);

    /** The request attribute (or property) {@code name}; null when the request has none. */
    @Nullable Object attribute(String name);
}
