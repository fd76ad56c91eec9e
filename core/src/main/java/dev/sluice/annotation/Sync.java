package dev.sluice.annotation;

/**
 * How a rule's counters are kept in step across a cluster's nodes. The default is exact: every decision is made on
 * the key's owner. Stores with one node (the local store) decide every rule exactly whatever it says.
 */
public enum Sync {
    /** Every decision on the key's owner (batched or leased as the store and rule say): never over the limit. */
    EXACT,
    /**
     * Each node decides from its own view of the key and sends the hits it admitted to the owner at a short interval,
     * adopting the owner's merged state in return: no cluster call per decision, over-admission bounded per algorithm
     * by the number of nodes, the interval and the rate (docs/design/synchronised.md). Window algorithms only.
     */
    PERIODIC
}
