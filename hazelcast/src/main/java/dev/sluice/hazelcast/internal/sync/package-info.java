/**
 * Internal: the synchronised mode's node side. {@link dev.sluice.hazelcast.internal.sync.SyncedKeys} keeps this node's
 * view of each synchronised key ({@code View}), decides from it within the key's budget, and sends the hits it admitted
 * to the owners of the keys' shards, one call in flight per shard ({@code Lane}). Depends on {@code internal.wire} and
 * core only; reached through {@code internal.calls.ProcessorDecider}. Design: {@code docs/design/synchronised.md}.
 */
@NullMarked
package dev.sluice.hazelcast.internal.sync;

import org.jspecify.annotations.NullMarked;
