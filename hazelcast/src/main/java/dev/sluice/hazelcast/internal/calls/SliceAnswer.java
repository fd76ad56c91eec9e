package dev.sluice.hazelcast.internal.calls;

import dev.sluice.Decision;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link Slices#grant} found for a request: decided (from a slice, or by the call that took one), waiting for a
 * slice on its way, or not leased (the owner decides as without leasing). See {@code docs/design/leasing.md}.
 */
public sealed interface SliceAnswer {

    /** Not leased: the key's owner decides the request as without leasing. */
    SliceAnswer TO_OWNER = new ToOwner();

    /** Decided: granted from this node's slice now, or the owner's answer to the call that takes a slice. */
    record Decided(CompletableFuture<Decision> decision) implements SliceAnswer {
    }

    /** Waits for the slice on its way; completes with {@link Decided} (granted from it) or {@link #TO_OWNER}. */
    record Waiting(CompletableFuture<SliceAnswer> slice) implements SliceAnswer {
    }

    /** See {@link #TO_OWNER}. */
    record ToOwner() implements SliceAnswer {
    }
}
