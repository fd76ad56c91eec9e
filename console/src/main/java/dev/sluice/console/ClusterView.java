package dev.sluice.console;

import java.util.List;

/**
 * What the console answers ({@code GET console/cluster}): every live instance's figures summed. Immutable.
 *
 * @param format the format version, {@value InstanceSnapshot#FORMAT}
 * @param generatedAtMillis when the answer was made (epoch milliseconds)
 * @param intervalMillis how long one series slot covers
 * @param drift whether the instances enforce rules of more than one version
 * @param clusterUnreachable whether the cluster's snapshots could not be read: then {@code instances} and
 *     {@code rules} are the answering instance's own
 * @param clearKeys whether keys are shown in clear; otherwise each is its mask ({@link dev.sluice.engine.KeyMask})
 *     by the JVM that answers
 * @param instances the instances whose snapshots have not expired, by id
 * @param rules every rule any of them recorded, its figures summed, its series aligned on the newest snapshot
 * @param overrides the overrides in force, which the store shares with every instance
 */
public record ClusterView(int format, long generatedAtMillis, long intervalMillis, boolean drift,
                          boolean clusterUnreachable, boolean clearKeys, List<InstanceView> instances,
                          List<RuleFigures> rules, List<OverrideView> overrides) {

    /**
     * One instance as the console shows it. Immutable.
     *
     * @param drifted whether its rules hash differs from the one most instances have
     */
    public record InstanceView(String instance, long publishedAtMillis, String rulesSource, String rulesHash,
                               long rulesLoadedAtMillis, boolean drifted, InstanceSnapshot.StoreFigures store) {
    }
}
