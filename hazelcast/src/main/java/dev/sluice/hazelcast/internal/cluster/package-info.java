/**
 * Internal: what the store learns about the cluster: whether its members can run Sluice's processors, and the newest
 * wire format version they all read. Depends on {@code internal.wire} and core only.
 */
@NullMarked
package dev.sluice.hazelcast.internal.cluster;

import org.jspecify.annotations.NullMarked;
