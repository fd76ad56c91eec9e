package dev.sluice.store;

import java.util.List;
import java.util.Map;

/**
 * How a counter store is doing, for health checks, metrics and status pages: the figures every store has (its mode,
 * the members it sees, the calls its failure policy decided in the last minute), and apart those of a store a cluster
 * shares ({@link Cluster}). A store with nothing remote reports no members, no failures and {@link Cluster#NONE}.
 * Immutable and thread-safe; no figure is negative. See {@code docs/design/failure-handling.md}.
 *
 * @param mode {@code local}, {@code hazelcast-member}, {@code hazelcast-client}, {@code hazelcast-instance},
 *     {@code compare-and-set}, or a name a store of an application's own gives
 * @param membersSeen the cluster members the store sees now; 0 for the local store and a client that lost its cluster
 * @param lastMinute the calls a failure policy decided instead of the store in the last minute
 * @param cluster the figures of a store shared by a cluster: leasing, the synchronised mode, its members
 */
public record StoreHealth(String mode, int membersSeen, Failures lastMinute, Cluster cluster) {

    /** The health of a store that decides on its own: a local store. */
    public static final StoreHealth LOCAL = new StoreHealth("local", 0, Failures.NONE, Cluster.NONE);

    /** Checks that the member count is not negative. */
    public StoreHealth {
        if (membersSeen < 0) {
            throw new IllegalArgumentException("negative members seen: " + membersSeen);
        }
    }

    /** This health with the failure counts of a {@link FailurePolicyStore} in front of the store. */
    StoreHealth withFailures(Failures failures) {
        return new StoreHealth(mode, membersSeen, failures, cluster);
    }

    /**
     * Calls a failure policy decided instead of the store over a span of time.
     *
     * @param failed calls the store failed (threw or completed exceptionally)
     * @param timedOut calls the store did not answer within its timeout
     * @param shed calls not sent to the store because too many were in flight
     */
    public record Failures(long failed, long timedOut, long shed) {

        /** No call decided by the failure policy. */
        public static final Failures NONE = new Failures(0, 0, 0);

        /** Checks that no count is negative. */
        public Failures {
            if (failed < 0 || timedOut < 0 || shed < 0) {
                throw new IllegalArgumentException("negative failure counts: " + failed + " failed, " + timedOut
                        + " timed out, " + shed + " shed");
            }
        }

        /** The calls failed, timed out or shed. */
        public long total() {
            return failed + timedOut + shed;
        }
    }

    /**
     * The figures of a store a cluster shares, since the store started unless said otherwise.
     *
     * @param incompatibleMembersSeen the cluster members, each counted once, found unable to run the store's own code
     *     (a member without Sluice's jars, for one)
     * @param permitsFreed concurrency permits this node freed because the node holding them was gone (a member that
     *     left, a client disconnected too long)
     * @param mapWarnings what the cluster does otherwise than the store configures its maps, and what it costs, one
     *     warning for each map and way (another in-memory format, a configuration of the cluster's own standing); empty
     *     while every map is kept as the store configures it
     * @param leasing this node's leased slices
     * @param synchronised this node's synchronised keys
     */
    public record Cluster(long incompatibleMembersSeen, long permitsFreed, List<String> mapWarnings, Leasing leasing,
                          Synchronised synchronised) {

        /** The figures of a store no cluster shares. */
        public static final Cluster NONE = new Cluster(0, 0, List.of(), Leasing.NONE, Synchronised.NONE);

        /** Checks that no count is negative; copies the warnings. */
        public Cluster {
            mapWarnings = List.copyOf(mapWarnings);
            if (incompatibleMembersSeen < 0 || permitsFreed < 0) {
                throw new IllegalArgumentException("negative cluster figures: " + incompatibleMembersSeen
                        + " incompatible members seen, " + permitsFreed + " permits freed");
            }
        }
    }

    /**
     * This node's side of leasing ({@code docs/design/leasing.md}).
     *
     * @param grants decisions this node granted from leased slices, with no cluster call
     * @param permitsHeld permits this node holds unused in leased slices now (counted at the owners, lost if this node
     *     dies)
     */
    public record Leasing(long grants, long permitsHeld) {

        /** No slice ever leased. */
        public static final Leasing NONE = new Leasing(0, 0);

        /** Checks that no figure is negative. */
        public Leasing {
            if (grants < 0 || permitsHeld < 0) {
                throw new IllegalArgumentException("negative leasing figures: " + grants + " grants, " + permitsHeld
                        + " permits held");
            }
        }
    }

    /**
     * This node's side of the synchronised mode ({@code docs/design/synchronised.md}).
     *
     * @param hitsWaiting permits this node admitted on synchronised keys that their owners have not yet counted (lost
     *     if this node dies)
     * @param lagNanos how long the oldest of those hits has waited, in nanoseconds; 0 with none
     * @param overAdmitted per rule id, the permits by which this node's hits took keys past their limits when the
     *     owners merged them (each window's excess once; a bucket's deepest debt once until it is full again): the
     *     mode's measured error (summed over the instances, the rule's)
     */
    public record Synchronised(long hitsWaiting, long lagNanos, Map<String, Long> overAdmitted) {

        /** No synchronised rule. */
        public static final Synchronised NONE = new Synchronised(0, 0, Map.of());

        /** Checks that no figure is negative; copies the map. */
        public Synchronised {
            overAdmitted = Map.copyOf(overAdmitted);
            if (hitsWaiting < 0 || lagNanos < 0) {
                throw new IllegalArgumentException("negative synchronised figures: " + hitsWaiting
                        + " hits waiting, " + lagNanos + " ns lag");
            }
        }
    }
}
