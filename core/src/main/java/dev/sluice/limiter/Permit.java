package dev.sluice.limiter;

import dev.sluice.Decision;
import dev.sluice.store.Counted;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The answer to {@link RateLimiter#tryAcquirePermit}: whether the key got a concurrency permit and, if so, the permit
 * itself, held until {@link #close()}. Use it in try-with-resources so that it is released however the work ends:
 *
 * <pre>{@code
 * try (Permit permit = limiter.tryAcquirePermit(tenant)) {
 *     if (!permit.granted()) { ... reject ... }
 *     ... the work ...
 * }
 * }</pre>
 *
 * <p>A permit never closed returns on its own at the concurrency limit's maximum hold. Thread-safe; {@link #close()}
 * is idempotent and may be called from any thread.
 */
public final class Permit implements AutoCloseable {

    private final Decision decision;
    private final Counted held;
    private final AtomicBoolean released = new AtomicBoolean();

    Permit(Decision decision, Counted held) {
        this.decision = decision;
        this.held = held;
    }

    /** Whether the permit was granted: the work may proceed. */
    public boolean granted() {
        return decision.allowed();
    }

    /**
     * The decision: for a grant, the concurrency limit's (permits free after it); for a rejection, the rejecting
     * limit's, a rate limit's or the concurrency limit's (whose retry-after is only a bound: until the earliest held
     * permit's maximum hold ends).
     */
    public Decision decision() {
        return decision;
    }

    /** Releases the permit, without waiting for the store; nothing for a rejection or a second call. */
    @Override
    public void close() {
        if (decision.allowed() && released.compareAndSet(false, true)) {
            held.giveBack();
        }
    }

    @Override
    public String toString() {
        return "Permit[" + (granted() ? released.get() ? "released" : "held" : "rejected") + " " + decision + "]";
    }
}
