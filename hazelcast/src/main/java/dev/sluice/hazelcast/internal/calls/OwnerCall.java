package dev.sluice.hazelcast.internal.calls;

import java.util.concurrent.CompletableFuture;

/** What asking to make a key's one call to its owner gave: the call started, or another one already in flight. */
sealed interface OwnerCall<T> {

    /** The call, started now. */
    record Started<T>(CompletableFuture<T> call) implements OwnerCall<T> {
    }

    /** Not started: {@code inFlight} completes once the key's call in flight ends, however it ends. */
    record Busy<T>(CompletableFuture<?> inFlight) implements OwnerCall<T> {
    }
}
