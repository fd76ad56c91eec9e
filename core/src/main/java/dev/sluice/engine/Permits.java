package dev.sluice.engine;

import dev.sluice.rules.Rule;
import dev.sluice.store.PermitQueue;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * How an evaluation takes concurrency permits on this node: where waiting requests queue (a {@link PermitQueue}, or
 * none: a rule's {@linkplain Rule#permitWait() wait} is then not waited and the request is rejected at once), where an
 * evaluation that waited goes on (never on the thread that released the permit, which may be a store's), and whom it
 * tells ({@link PermitEvents}). Immutable and thread-safe.
 */
public final class Permits {

    /** No waiting, telling nothing. */
    public static final Permits NONE = new Permits(null, Runnable::run, PermitEvents.NONE);

    private final @Nullable PermitQueue queue;
    private final Executor continuation;
    private final PermitEvents events;

    private Permits(@Nullable PermitQueue queue, Executor continuation, PermitEvents events) {
        this.queue = queue;
        this.continuation = continuation;
        this.events = events;
    }

    /** Waiting in {@code queue}, going on after a wait on {@code continuation}, telling {@code events}. */
    public static Permits waitingIn(PermitQueue queue, Executor continuation, PermitEvents events) {
        return new Permits(Objects.requireNonNull(queue, "queue"), Objects.requireNonNull(continuation,
                "continuation"), Objects.requireNonNull(events, "events"));
    }

    /** No waiting, telling {@code events}. */
    public static Permits telling(PermitEvents events) {
        return new Permits(null, Runnable::run, Objects.requireNonNull(events, "events"));
    }

    Optional<PermitQueue> queue() {
        return Optional.ofNullable(queue);
    }

    Executor continuation() {
        return continuation;
    }

    PermitEvents events() {
        return events;
    }
}
