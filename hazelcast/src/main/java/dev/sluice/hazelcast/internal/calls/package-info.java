/**
 * Internal: how decisions reach the members. {@link dev.sluice.hazelcast.internal.calls.ProcessorDecider} owns the
 * route per rule (synchronised: this node's view, or leased slices while a key is hot; leased: a slice; else same-key
 * batch, else one processor call) and all sending; leasing's node side, same-key batching, processor calls. Depends
 * on {@code internal.sync}, {@code internal.wire} and core only.
 */
@NullMarked
package dev.sluice.hazelcast.internal.calls;

import org.jspecify.annotations.NullMarked;
