/**
 * Internal: the Hazelcast store's overrides of limits. {@link dev.sluice.hazelcast.internal.overrides.ClusterOverrides}
 * keeps them in a map of JSON texts and a copy on each instance, read again on every change and every half second.
 * Depends on core only. Design: {@code docs/design/overrides.md}.
 */
@NullMarked
package dev.sluice.hazelcast.internal.overrides;

import org.jspecify.annotations.NullMarked;
