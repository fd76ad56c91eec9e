package dev.sluice.engine;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import dev.sluice.rules.UnitCosts;
import dev.sluice.store.Counted;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A request's reservation of its estimate under one rule's limits in a unit other than requests (tokens, bytes):
 * settled exactly once at its actual cost, by {@link #settle} or when the request ends ({@link Evaluation#end}),
 * whichever comes first, or given back whole when another rule rejected the request. An excess over the estimate is a
 * debt the key pays back before its next grant; a difference below it is given back. Thread-safe. See
 * {@code docs/design/costs.md}.
 */
public final class Reservation {

    private static final System.Logger LOG = System.getLogger(Reservation.class.getName());
    private static final long UNSETTLED = -1;

    private final RuleDecision outcome;
    private final long estimate;
    /** The store's reservation. */
    private final Counted reserved;
    private final PermitEvents events;
    private final AtomicLong actual = new AtomicLong(UNSETTLED);
    /** What the evaluation keeps as the outcome's count: its give-back and settle go through this reservation. */
    private final Counted counted;

    /** A granted reservation of {@code estimate}, told to {@code events}. */
    Reservation(RuleDecision outcome, long estimate, Counted reserved, PermitEvents events) {
        this.outcome = outcome;
        this.estimate = estimate;
        this.reserved = reserved;
        this.events = events;
        this.counted = Counted.reservation(outcome.decision(), this::giveBack, this::settle);
        events.reserved(outcome.rule().id(), unit(), estimate);
    }

    /** The rule's decision on the estimate. */
    public RuleDecision outcome() {
        return outcome;
    }

    /** The unit the rule's limits count, such as {@code tokens}. */
    public String unit() {
        return ((Policy) outcome.quota()).unit();
    }

    /** The cost reserved when the request started. */
    public long estimate() {
        return estimate;
    }

    /** The cost it was settled at (0 when given back); empty while it is not settled. */
    public OptionalLong settled() {
        long settled = actual.get();
        return settled == UNSETTLED ? OptionalLong.empty() : OptionalLong.of(settled);
    }

    /**
     * Settles the reservation at its {@code actualCost}, without waiting for the store: the excess over the estimate is
     * charged (a debt the key pays back before its next grant), the difference below it given back. A cost above the
     * rule's maximum ({@link UnitCosts#maxActualCost(Policy)}) settles at that maximum, logged (without the key).
     * Only the first settle counts; a later one, or one after the reservation was given back, changes nothing.
     * Completes with a bare look at the key after it (its decision, when nothing changed), or with the store's failure,
     * which is logged: the estimate then stays counted.
     *
     * @throws IllegalArgumentException when {@code actualCost} is negative
     */
    public CompletionStage<Decision> settle(long actualCost) {
        if (actualCost < 0) {
            throw new IllegalArgumentException("an actual cost is 0 or more, got " + actualCost);
        }
        if (!open()) {
            return CompletableFuture.completedFuture(outcome.decision());
        }
        long cost = outcome.rule().unitCosts().orElseThrow()
                .boundedActualCost(actualCost, (Policy) outcome.quota());
        if (!actual.compareAndSet(UNSETTLED, cost)) {
            return CompletableFuture.completedFuture(outcome.decision());
        }
        events.settled(outcome.rule().id(), unit(), estimate, cost);
        if (cost == estimate) {
            return CompletableFuture.completedFuture(outcome.decision());
        }
        CompletionStage<Decision> settling = reserved.settle(cost);
        settling.whenComplete((after, failure) -> {
            if (failure != null) {
                LOG.log(System.Logger.Level.WARNING, "Sluice could not settle a reservation of rule '"
                        + outcome.rule().id() + "' (key " + KeyMask.of(outcome.key()) + "); its estimate stays"
                        + " counted", failure instanceof RuntimeException error
                        ? KeyMask.redacted(error, outcome.key()) : failure);
            }
        });
        return settling;
    }

    /** Whether the reservation is not settled yet. */
    boolean open() {
        return actual.get() == UNSETTLED;
    }

    /** What the evaluation keeps for this outcome: giving it back or settling it goes through here, once. */
    Counted counted() {
        return counted;
    }

    /** Takes the reservation back whole (another rule rejected the request): it ends at 0. */
    private CompletionStage<Decision> giveBack() {
        if (!actual.compareAndSet(UNSETTLED, 0)) {
            return CompletableFuture.completedFuture(outcome.decision());
        }
        events.settled(outcome.rule().id(), unit(), estimate, 0);
        return reserved.giveBack();
    }

    @Override
    public String toString() {
        long settled = actual.get();
        return "Reservation[" + outcome.rule().id() + " key " + KeyMask.of(outcome.key()) + " " + estimate + " "
                + unit() + (settled == UNSETTLED ? "" : " settled at " + settled) + "]";
    }
}
