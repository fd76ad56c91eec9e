/**
 * Internal: the synchronised mode's node side. {@link dev.sluice.hazelcast.internal.sync.SyncedKeys} keeps this node's
 * view of each synchronised key, decides from it, and sends the hits it admitted to the keys' owners, one message per
 * member per interval. Depends on {@code internal.wire} and core only; reached through
 * {@code internal.calls.ProcessorDecider}. Design: {@code docs/design/synchronised.md}.
 */
@NullMarked
package dev.sluice.hazelcast.internal.sync;

import org.jspecify.annotations.NullMarked;
