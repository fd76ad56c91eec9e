package dev.sluice.annotation;

/**
 * What a rule does with a request that lacks the attribute it is keyed by: no such header, cookie or query parameter,
 * no principal. The safe default counts such requests, so that leaving the key out never gets a request past a limit.
 */
public enum OnMissingKey {
    /**
     * Count the request under a fallback key: the rule's {@code fallbackKey} when it names one (all such requests then
     * share one counter), otherwise the client's address (each client its own counter, apart from the counters of
     * real key values).
     */
    FALLBACK,
    /** Leave the request uncounted by this rule. Only for rules where a missing key cannot be abused. */
    SKIP
}
