package dev.sluice.annotation;

/**
 * How a rule's counters are kept in step across a cluster's nodes. The default is exact: every decision is made on
 * the key's owner. Stores with one node (the local store) decide every rule exactly whatever it says.
 */
public enum Sync {
    /** Every decision on the key's owner (batched or leased as the store and rule say): never over the limit. */
    EXACT,
    /**
     * Synchronised: each node decides from its own view of the key, within a budget of permits the key's owner has not
     * yet counted, and sends the hits it admitted to the owner at a short interval, adopting the owner's merged state
     * in return: no cluster call per decision, at most {@code (nodes - 1) * budget} over the limit per window
     * (docs/design/synchronised.md). Every algorithm; not with leasing.
     */
    SYNCHRONISED
}
