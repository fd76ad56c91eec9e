/**
 * The Hazelcast store: {@link dev.sluice.hazelcast.HazelcastCounterStore}, reached by starting a member, connecting a
 * client or using an instance the application has; its options; the entry processors and their serialization; and the
 * {@code hazelcast} and {@code hazelcast-client} store providers.
 */
@NullMarked
package dev.sluice.hazelcast;

import org.jspecify.annotations.NullMarked;
