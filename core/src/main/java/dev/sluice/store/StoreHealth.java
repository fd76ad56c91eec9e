package dev.sluice.store;

import java.util.Map;

/**
 * How a counter store is doing, for health checks, metrics and status pages. A store with nothing remote reports no
 * members and no failures. Immutable and thread-safe. See {@code docs/design/failure-handling.md}.
 *
 * @param mode {@code local}, {@code hazelcast-member}, {@code hazelcast-client}, {@code hazelcast-instance},
 *     {@code compare-and-set}, or a name a store of an application's own gives
 * @param membersSeen the cluster members the store sees now; 0 for the local store and a client that lost its cluster
 * @param failedLastMinute calls the store failed (threw or completed exceptionally) in the last minute
 * @param timedOutLastMinute calls the store did not answer within its timeout in the last minute
 * @param shedLastMinute calls not sent to the store in the last minute because too many were in flight
 * @param leasedGrants decisions this node granted from leased slices since the store started; 0 without leasing
 * @param leasedPermitsHeld permits this node holds unused in leased slices now (counted at the owners, lost if this
 *     node dies); 0 without leasing
 * @param incompatibleMembersSeen the cluster members, each counted once, found since the store started unable to run
 *     the store's own code (a member without Sluice's jars, for one); 0 for a store with no cluster
 * @param syncHitsWaiting permits this node admitted on synchronised keys that their owners have not yet counted
 *     (lost if this node dies); 0 without synchronised rules
 * @param syncLagNanos how long the oldest of those hits has waited, in nanoseconds; 0 with none
 * @param permitsFreed concurrency permits this node freed since the store started because the node holding them was
 *     gone (a member that left, a client disconnected too long); 0 for a store with no cluster
 * @param syncOverAdmitted per rule id, the permits by which this node's synchronised hits took keys past their limits
 *     when the owners merged them (each window's excess once; a bucket's deepest debt once until it is full again),
 *     since the store started: the synchronised mode's measured error (summed over the instances, the rule's); empty
 *     without synchronised rules
 */
public record StoreHealth(String mode, int membersSeen, long failedLastMinute, long timedOutLastMinute,
                          long shedLastMinute, long leasedGrants, long leasedPermitsHeld,
                          long incompatibleMembersSeen, long syncHitsWaiting, long syncLagNanos, long permitsFreed,
                          Map<String, Long> syncOverAdmitted) {

    /** The health of a store that decides on its own: a local store. */
    public static final StoreHealth LOCAL = new StoreHealth("local", 0, 0, 0, 0);

    /** Checks that no number is negative; copies the map. */
    public StoreHealth {
        syncOverAdmitted = Map.copyOf(syncOverAdmitted);
        if (membersSeen < 0 || failedLastMinute < 0 || timedOutLastMinute < 0 || shedLastMinute < 0
                || leasedGrants < 0 || leasedPermitsHeld < 0 || incompatibleMembersSeen < 0 || syncHitsWaiting < 0
                || syncLagNanos < 0 || permitsFreed < 0) {
            throw new IllegalArgumentException("negative health figures: " + membersSeen + " members, "
                    + failedLastMinute + " failed, " + timedOutLastMinute + " timed out, " + shedLastMinute + " shed, "
                    + leasedGrants + " leased grants, " + leasedPermitsHeld + " leased permits held, "
                    + incompatibleMembersSeen + " incompatible members seen, " + syncHitsWaiting
                    + " sync hits waiting, " + syncLagNanos + " ns sync lag, " + permitsFreed + " permits freed");
        }
    }

    /** The health of a store whose owners found no synchronised hit beyond a limit. */
    public StoreHealth(String mode, int membersSeen, long failedLastMinute, long timedOutLastMinute,
                       long shedLastMinute, long leasedGrants, long leasedPermitsHeld, long incompatibleMembersSeen,
                       long syncHitsWaiting, long syncLagNanos, long permitsFreed) {
        this(mode, membersSeen, failedLastMinute, timedOutLastMinute, shedLastMinute, leasedGrants, leasedPermitsHeld,
                incompatibleMembersSeen, syncHitsWaiting, syncLagNanos, permitsFreed, Map.of());
    }

    /** The health of a store with no synchronised hits waiting and no concurrency permit of a gone node freed. */
    public StoreHealth(String mode, int membersSeen, long failedLastMinute, long timedOutLastMinute,
                       long shedLastMinute, long leasedGrants, long leasedPermitsHeld, long incompatibleMembersSeen) {
        this(mode, membersSeen, failedLastMinute, timedOutLastMinute, shedLastMinute, leasedGrants, leasedPermitsHeld,
                incompatibleMembersSeen, 0, 0, 0);
    }

    /** The health of a store that has found no incompatible member. */
    public StoreHealth(String mode, int membersSeen, long failedLastMinute, long timedOutLastMinute,
                       long shedLastMinute, long leasedGrants, long leasedPermitsHeld) {
        this(mode, membersSeen, failedLastMinute, timedOutLastMinute, shedLastMinute, leasedGrants, leasedPermitsHeld,
                0);
    }

    /** The health of a store that does not lease. */
    public StoreHealth(String mode, int membersSeen, long failedLastMinute, long timedOutLastMinute,
                       long shedLastMinute) {
        this(mode, membersSeen, failedLastMinute, timedOutLastMinute, shedLastMinute, 0, 0);
    }

    /** Calls in the last minute that a failure policy decided instead of the store: failed, timed out or shed. */
    public long decidedByFailurePolicyLastMinute() {
        return failedLastMinute + timedOutLastMinute + shedLastMinute;
    }

    /** This health with the failure counts of a {@link FailurePolicyStore} in front of the store. */
    StoreHealth withFailures(long failed, long timedOut, long shed) {
        return new StoreHealth(mode, membersSeen, failed, timedOut, shed, leasedGrants, leasedPermitsHeld,
                incompatibleMembersSeen, syncHitsWaiting, syncLagNanos, permitsFreed, syncOverAdmitted);
    }
}
