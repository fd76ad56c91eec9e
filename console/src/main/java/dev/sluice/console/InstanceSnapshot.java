package dev.sluice.console;

import java.util.List;

/**
 * What one instance publishes every interval (as JSON text, under its instance id, in the store's shared entries
 * named {@value Console#ENTRIES}): its rules' figures, which rules it enforces, and its store's health. Immutable.
 *
 * @param format the format version, {@value #FORMAT}: a reader skips snapshots of a format it does not know
 * @param instance the instance's id
 * @param publishedAtMillis when it was taken (epoch milliseconds, the instance's wall clock): the end of its series
 * @param intervalMillis how long one series slot covers
 * @param rulesSource where the rules come from, such as {@code /WEB-INF/sluice-rules.json}
 * @param rulesHash the rules version's hash ({@link dev.sluice.engine.ReloadingRuleSet.Version#hash()})
 * @param rulesLoadedAtMillis when those rules were loaded (epoch milliseconds)
 * @param store the store's health as the instance sees it
 * @param rules every rule that decided a request since the instance started recording
 */
public record InstanceSnapshot(int format, String instance, long publishedAtMillis, long intervalMillis,
                               String rulesSource, String rulesHash, long rulesLoadedAtMillis, StoreFigures store,
                               List<RuleFigures> rules) {

    /** The format this release writes and reads. */
    public static final int FORMAT = 1;

    /**
     * The store's health ({@link dev.sluice.store.StoreHealth}) as one instance sees it. Immutable.
     *
     * @param mode the store mode
     * @param membersSeen cluster members seen
     * @param failedLastMinute store calls that failed in the last minute
     * @param timedOutLastMinute store calls that timed out in the last minute
     * @param shedLastMinute store calls shed in the last minute
     * @param leasedPermitsHeld permits held unused in leased slices
     * @param syncHitsWaiting synchronised hits not yet counted by their owners
     */
    public record StoreFigures(String mode, int membersSeen, long failedLastMinute, long timedOutLastMinute,
                               long shedLastMinute, long leasedPermitsHeld, long syncHitsWaiting) {
    }
}
