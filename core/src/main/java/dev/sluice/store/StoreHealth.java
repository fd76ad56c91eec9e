package dev.sluice.store;

/**
 * How a counter store is doing, for health checks, metrics and status pages: what it is, how much of its cluster it
 * sees, and how many calls in the last minute it could not decide. A store with nothing remote reports no members
 * and no failures. Immutable and thread-safe.
 *
 * @param mode what kind of store decides: {@code local}, {@code hazelcast-member}, {@code hazelcast-client},
 *     {@code hazelcast-instance}, {@code compare-and-set}, or a name a store of an application's own gives
 * @param membersSeen the cluster members the store sees now; 0 for a store that is no cluster member or client
 *     (the local store), and for a client that has lost its cluster
 * @param failedLastMinute calls the store failed (threw or completed exceptionally) in the last minute
 * @param timedOutLastMinute calls the store did not answer within its timeout in the last minute
 * @param shedLastMinute calls not sent to the store in the last minute because too many were in flight
 */
public record StoreHealth(String mode, int membersSeen, long failedLastMinute, long timedOutLastMinute,
                          long shedLastMinute) {

    /** The health of a store that decides on its own: a local store. */
    public static final StoreHealth LOCAL = new StoreHealth("local", 0, 0, 0, 0);

    /** Checks that no number is negative. */
    public StoreHealth {
        if (membersSeen < 0 || failedLastMinute < 0 || timedOutLastMinute < 0 || shedLastMinute < 0) {
            throw new IllegalArgumentException("negative health figures: " + membersSeen + " members, "
                    + failedLastMinute + " failed, " + timedOutLastMinute + " timed out, " + shedLastMinute + " shed");
        }
    }

    /** Calls in the last minute that a failure policy decided instead of the store: failed, timed out or shed. */
    public long decidedByFailurePolicyLastMinute() {
        return failedLastMinute + timedOutLastMinute + shedLastMinute;
    }

    /** This health with the failure counts of a {@link FailurePolicyStore} in front of the store. */
    StoreHealth withFailures(long failed, long timedOut, long shed) {
        return new StoreHealth(mode, membersSeen, failed, timedOut, shed);
    }
}
