/**
 * The Hazelcast store: {@link dev.sluice.hazelcast.HazelcastCounterStore}, reached by starting a member, connecting a
 * client or using an instance the application has; its options; the compare-and-set store for members without Sluice;
 * the merge policy a member configuration names; and the {@code hazelcast} and {@code hazelcast-client} store
 * providers. Everything under {@code dev.sluice.hazelcast.internal} is Sluice's own and may change in any release.
 */
@NullMarked
package dev.sluice.hazelcast;

import org.jspecify.annotations.NullMarked;
