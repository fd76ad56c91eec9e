package dev.sluice.hazelcast.internal.calls;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** One key on this node in {@link Slices}: its recent traffic, its slice and the next one. Thread-safe. */
final class KeySlices {
    final AtomicReference<@Nullable Slice> slice = new AtomicReference<>();
    /** Taken ahead of need; granted from once {@link #slice} is used up or invalid. */
    final AtomicReference<@Nullable Slice> next = new AtomicReference<>();
    /**
     * While a slice is being taken (or permits given back): completed once it is here (or the call failed), after
     * it is in place; the requests that find no permit meanwhile wait for it.
     */
    final AtomicReference<@Nullable CompletableFuture<@Nullable Void>> taking = new AtomicReference<>();
    /** The owner's last rejection of a slice, while it holds. */
    final AtomicReference<@Nullable Spent> spent = new AtomicReference<>();
    private long span = Long.MIN_VALUE;
    private long current;
    private long previous;
    volatile long lastSeen;

    /**
     * The slice to grant from now: the current one while it is valid and not used up, else the next one, which
     * then becomes the current one; empty when neither is valid.
     */
    Optional<Slice> current(long now) {
        Slice current = slice.get();
        if (current != null && now < current.expiresAt && current.left.get() > 0) {
            return Optional.of(current);
        }
        Slice following = next.get();
        if (following == null || now >= following.expiresAt) {
            return current != null && now < current.expiresAt ? Optional.of(current) : Optional.empty();
        }
        if (slice.compareAndSet(current, following)) {
            next.compareAndSet(following, null);
        }
        return Optional.ofNullable(slice.get());
    }

    /**
     * Runs {@code call} as this key's one call in flight (a slice taken, ahead of need or not, or permits given
     * back); once it ends, however it ends, the next may start and the requests that waited go on. While another
     * is in flight, {@code call} is not run and the answer says which call is.
     */
    <T> OwnerCall<T> callAlone(Supplier<CompletableFuture<T>> call) {
        CompletableFuture<@Nullable Void> inFlight = new CompletableFuture<>();
        CompletableFuture<@Nullable Void> other = taking.compareAndExchange(null, inFlight);
        if (other != null) {
            return new OwnerCall.Busy<>(other);
        }
        try {
            return new OwnerCall.Started<>(call.get().whenComplete((result, failure) -> ended(inFlight)));
        } catch (Throwable e) {
            ended(inFlight);
            throw e;
        }
    }

    private void ended(CompletableFuture<@Nullable Void> inFlight) {
        taking.compareAndSet(inFlight, null);
        inFlight.complete(null);
    }

    /** Counts {@code cost} permits asked for now; returns the larger count of this span and the one before. */
    synchronized long seen(long now, long cost, long spanNanos) {
        long at = Math.floorDiv(now, spanNanos);
        if (at != span) {
            previous = at == span + 1 ? current : 0;
            current = 0;
            span = at;
        }
        current += cost;
        lastSeen = now;
        return Math.max(current, previous);
    }
}
