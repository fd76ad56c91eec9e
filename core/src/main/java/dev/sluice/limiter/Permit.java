package dev.sluice.limiter;

import dev.sluice.Decision;
import dev.sluice.rules.ActualCost;
import dev.sluice.store.Counted;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The answer to {@link RateLimiter#tryAcquirePermit}: whether the key got a concurrency permit and, if so, the permit
 * itself, held until {@link #close()}; or to {@link RateLimiter#tryReserve}: whether the key's estimate was reserved
 * and, if so, the reservation, settled at its actual cost by {@link #settle} (a reservation closed without a settle
 * keeps its estimate). Use it in try-with-resources so that it is released however the work ends:
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
    /** The estimate of a reservation; 0 for a concurrency permit. */
    private final long estimate;
    /** The largest actual cost a reservation settles at. */
    private final long maxActual;
    private final AtomicBoolean released = new AtomicBoolean();

    Permit(Decision decision, Counted held) {
        this(decision, held, 0, 0);
    }

    Permit(Decision decision, Counted held, long estimate, long maxActual) {
        this.decision = decision;
        this.held = held;
        this.estimate = estimate;
        this.maxActual = maxActual;
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

    /**
     * Settles a reservation at its {@code actualCost}, without waiting for the store: an excess over the estimate is
     * charged (a debt the key pays back before its next grant), a difference below it given back
     * ({@code docs/design/costs.md}). A cost above {@link ActualCost#defaultMax} of the limiter's policy (ten times
     * its capacity) settles at that, so that no cost said locks the key for longer than such a debt does. Once:
     * nothing for a rejection, a second settle, or after {@link #close()}. Completes with a bare look at the key after
     * it (the decision, when nothing changed).
     *
     * @throws IllegalStateException for a concurrency permit, which has no cost to settle
     * @throws IllegalArgumentException when {@code actualCost} is negative
     */
    public CompletionStage<Decision> settle(long actualCost) {
        if (estimate == 0) {
            throw new IllegalStateException("a concurrency permit has no cost to settle; close it");
        }
        if (actualCost < 0) {
            throw new IllegalArgumentException("an actual cost is 0 or more, got " + actualCost);
        }
        long cost = Math.min(actualCost, maxActual);
        if (!decision.allowed() || !released.compareAndSet(false, true) || cost == estimate) {
            return CompletableFuture.completedFuture(decision);
        }
        return held.settle(cost);
    }

    /**
     * Releases a concurrency permit, without waiting for the store; ends a reservation not settled, which keeps its
     * estimate. Nothing for a rejection or a second call.
     */
    @Override
    public void close() {
        if (decision.allowed() && released.compareAndSet(false, true) && estimate == 0) {
            held.giveBack();
        }
    }

    @Override
    public String toString() {
        return "Permit[" + (granted() ? released.get() ? "released" : "held" : "rejected")
                + (estimate == 0 ? "" : " estimate " + estimate) + " " + decision + "]";
    }
}
