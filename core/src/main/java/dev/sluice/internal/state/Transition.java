package dev.sluice.internal.state;

import dev.sluice.Decision;
import org.jspecify.annotations.Nullable;

/**
 * The result of running a policy's algorithm once: the decision, and the key's state to store afterwards.
 *
 * <p>When the request is rejected, or nothing changed, {@link #state()} is the very array that came in and
 * {@link #changed()} is false, so a store can skip the write (and a Hazelcast backup). Immutable by convention: the
 * arrays are never modified after construction.
 */
public final class Transition {

    private final long @Nullable [][] state;
    private final Decision decision;
    private final boolean changed;
    private final long idleAfterNanos;

    public Transition(long @Nullable [][] state, Decision decision, boolean changed, long idleAfterNanos) {
        this.state = state;
        this.decision = decision;
        this.changed = changed;
        this.idleAfterNanos = idleAfterNanos;
    }

    /** The state to keep for the key; {@code null} when the key has none. Do not modify. */
    public long @Nullable [][] state() {
        return state;
    }

    /** The state a store writes, for a transition that {@linkplain #changed() changed} it: never null then. */
    public long[][] changedState() {
        if (!changed || state == null) {
            throw new IllegalStateException("only a transition that changed the state has one to write");
        }
        return state;
    }

    public Decision decision() {
        return decision;
    }

    /** Whether {@link #state()} differs from the state passed in, so the store must write it. */
    public boolean changed() {
        return changed;
    }

    /**
     * Nanoseconds after which, with no further requests, the key's state is back to full capacity and may be
     * dropped (every limit's reset time, the longest of them). Stores use it as the entry's time to live.
     */
    public long idleAfterNanos() {
        return idleAfterNanos;
    }
}
