/**
 * Internal: how decisions reach the members. {@link dev.sluice.hazelcast.internal.calls.ProcessorDecider} owns the
 * route (leased slice, else same-key batch, else one processor call) and all sending; leasing's node side, same-key
 * batching, processor calls and their callback threads. Depends on {@code internal.wire} and core only.
 */
@NullMarked
package dev.sluice.hazelcast.internal.calls;

import org.jspecify.annotations.NullMarked;
