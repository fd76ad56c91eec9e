/**
 * Internal: what runs on the members and travels between them: the entry processors, their results, the counter state,
 * the versioned wire format, the member's clock and the serializer hook, and the constants both sides need. Depends on
 * core only (the hook also creates the public {@code MoreConsumedMergePolicy}, which a member configuration names).
 */
@NullMarked
package dev.sluice.hazelcast.internal.wire;

import org.jspecify.annotations.NullMarked;
