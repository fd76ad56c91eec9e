package dev.sluice.engine;

/**
 * What happens to a node's concurrency permits, per rule: taken and released (so that a sink can keep the permits held
 * per rule), and waits started, granted and timed out (a wait whose request went away is neither); and to its
 * reservations of a cost in a unit other than requests: reserved, then settled once. Called by
 * {@link RuleSet#evaluate(RequestView, dev.sluice.store.CounterStore, Evaluation, Permits)}, the release of its
 * permits and the settle of its reservations, on any thread; implementations must be thread-safe, must not block, and
 * see rule ids, never keys. Each method does nothing by default. See {@code docs/design/concurrency.md} and
 * {@code docs/design/costs.md}.
 */
public interface PermitEvents {

    /** Tells nothing. */
    PermitEvents NONE = new PermitEvents() {
    };

    /** A permit of rule {@code ruleId} was taken on this node; {@link #released} follows exactly once. */
    default void taken(String ruleId) {
    }

    /** A permit of rule {@code ruleId} taken on this node was released: the store has answered its release. */
    default void released(String ruleId) {
    }

    /** A request over rule {@code ruleId}'s concurrency limit began waiting for a permit. */
    default void waitStarted(String ruleId) {
    }

    /** A request that waited got its permit of rule {@code ruleId}. */
    default void waitGranted(String ruleId) {
    }

    /** A request that waited for rule {@code ruleId}'s permit until its wait ended got none, and is rejected. */
    default void waitTimedOut(String ruleId) {
    }

    /**
     * A request reserved {@code estimate} of rule {@code ruleId}'s limits in {@code unit} on this node;
     * {@link #settled} follows exactly once.
     */
    default void reserved(String ruleId, String unit, long estimate) {
    }

    /**
     * A reservation of {@code estimate} ended at {@code actual}: settled when its request ended (its estimate when the
     * request said nothing), or 0 when it was given back because another rule rejected the request. An
     * {@code actual} above the estimate is a debt the key pays back.
     */
    default void settled(String ruleId, String unit, long estimate, long actual) {
    }
}
