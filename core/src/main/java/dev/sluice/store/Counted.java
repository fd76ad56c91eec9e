package dev.sluice.store;

import dev.sluice.Decision;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A store's decision on one request ({@link Command.Count}), and how to take the request back when another
 * rule rejects it: so that a request rejected by one matched rule consumes nothing from the others; for a concurrency
 * permit ({@link Command.Acquire}), how to release it, and the permit's id, by which any node sharing the
 * store releases it ({@link Command.Release}); for a reservation ({@link Command.Estimate}), how to
 * settle it at its actual cost ({@link #settle}), and its id, by which any node sharing the store settles it
 * ({@link Command.Settle}). Immutable and thread-safe; {@link #giveBack()} is called at most once for a
 * count, and only for a granted decision; releasing a permit again does nothing; {@link #settle} is called at most
 * once, and only for a granted reservation that was not given back.
 *
 * <p>A store that can take requests back (every Sluice store) undoes the count where it was made, as of the instant
 * it was made ({@link dev.sluice.algorithm.Policy#undo}); a rejection, a failure policy's answer that counted
 * nothing, and a store of another library keep the decision as it is ({@link #kept}). See
 * {@code docs/design/all-or-nothing.md} and {@code docs/design/costs.md}.
 */
public final class Counted {

    /** The id of what is not a permit or a reservation: never asked for ({@link #permit()} answers empty). */
    private static final Supplier<String> NO_ID = () -> {
        throw new IllegalStateException("a count has no permit or reservation id");
    };

    private final Decision decision;
    private final Supplier<CompletionStage<Decision>> giveBack;
    /** {@link #NO_ID} for what is not a permit. */
    private final Supplier<String> permitId;
    /** What settles a reservation at its actual cost; for anything else, the decision as it is. */
    private final LongFunction<CompletionStage<Decision>> settle;
    /** {@link #NO_ID} for what is not a reservation settled by id. */
    private final Supplier<String> reservationId;

    private Counted(Decision decision, Supplier<CompletionStage<Decision>> giveBack, Supplier<String> permitId,
                    LongFunction<CompletionStage<Decision>> settle, Supplier<String> reservationId) {
        this.decision = Objects.requireNonNull(decision, "decision");
        this.giveBack = giveBack;
        this.permitId = permitId;
        this.settle = settle;
        this.reservationId = reservationId;
    }

    /** A decision with nothing to take back: a rejection, an answer that counted nothing, or a store that cannot. */
    public static Counted kept(Decision decision) {
        CompletionStage<Decision> same = CompletableFuture.completedFuture(decision);
        return new Counted(decision, () -> same, NO_ID, actual -> same, NO_ID);
    }

    /**
     * A granted decision that {@code giveBack} takes back, answering a bare look at the key's state after it (what
     * {@link Command.Peek peek} of cost 0 answers).
     */
    public static Counted undoable(Decision decision, Supplier<CompletionStage<Decision>> giveBack) {
        return new Counted(decision, Objects.requireNonNull(giveBack, "giveBack"), NO_ID, nothingToSettle(decision),
                NO_ID);
    }

    /**
     * A granted concurrency permit: {@code release} releases it, as {@link Command.Release} of its id does
     * from any node sharing the store. The id is made by {@code id} when asked for (most permits are released by
     * {@link #giveBack()} and never need theirs), never empty.
     */
    public static Counted permit(Decision decision, Supplier<String> id, Supplier<CompletionStage<Decision>> release) {
        Objects.requireNonNull(id, "id");
        return new Counted(decision, Objects.requireNonNull(release, "release"), id, nothingToSettle(decision), NO_ID);
    }

    /**
     * A granted reservation of an estimate: {@code giveBack} takes it back whole (another rule rejected the request),
     * {@code settle} settles it at its actual cost, as {@link Command.Settle} of its id does from any node
     * sharing the store. The id is made by {@code id} when asked for, never empty.
     */
    public static Counted reservation(Decision decision, Supplier<CompletionStage<Decision>> giveBack,
                                      LongFunction<CompletionStage<Decision>> settle, Supplier<String> id) {
        return new Counted(decision, Objects.requireNonNull(giveBack, "giveBack"), NO_ID,
                Objects.requireNonNull(settle, "settle"), Objects.requireNonNull(id, "id"));
    }

    /**
     * A granted reservation of a store that cannot settle it by id (a store of another library): {@code settle}
     * settles it where it was counted, and {@link #reservation()} is empty.
     */
    public static Counted reservation(Decision decision, Supplier<CompletionStage<Decision>> giveBack,
                                      LongFunction<CompletionStage<Decision>> settle) {
        return new Counted(decision, Objects.requireNonNull(giveBack, "giveBack"), NO_ID,
                Objects.requireNonNull(settle, "settle"), NO_ID);
    }

    private static LongFunction<CompletionStage<Decision>> nothingToSettle(Decision decision) {
        CompletionStage<Decision> same = CompletableFuture.completedFuture(decision);
        return actual -> same;
    }

    /**
     * The id of a granted permit, which {@link Command.Release} takes on any node sharing the store; empty
     * for a count, a rejection, and a permit a failure policy granted without a counter (nothing to release).
     */
    public Optional<String> permit() {
        return id(permitId);
    }

    /**
     * The id of a granted reservation, which {@link Command.Settle} takes on any node sharing the store;
     * empty for anything else, a reservation a failure policy granted without a counter, and one of a store that
     * settles only where it counted.
     */
    public Optional<String> reservation() {
        return id(reservationId);
    }

    private static Optional<String> id(Supplier<String> made) {
        if (made == NO_ID) {
            return Optional.empty();
        }
        String id = made.get();
        if (id.isEmpty()) {
            throw new IllegalStateException("a store made an empty permit or reservation id");
        }
        return Optional.of(id);
    }

    /** The store's decision on the request. */
    public Decision decision() {
        return decision;
    }

    /**
     * Takes the request back, without blocking the caller: completes with the key's state after it (for
     * {@linkplain #kept kept} decisions, the decision itself), or exceptionally with the store's failure, when the
     * count stays (the key then holds a request that did not pass: fewer requests pass, never more).
     */
    public CompletionStage<Decision> giveBack() {
        return giveBack.get();
    }

    /**
     * Settles a granted reservation at its {@code actual} cost, without blocking the caller: the excess over the
     * estimate is charged, the difference below it given back ({@link dev.sluice.algorithm.Policy#settle}). Completes
     * with a bare look at the key's state after it (for anything but a reservation, the decision itself), or
     * exceptionally with the store's failure, when the estimate stays counted (and an excess is not charged).
     *
     * @throws IllegalArgumentException when {@code actual} is negative
     */
    public CompletionStage<Decision> settle(long actual) {
        if (actual < 0) {
            throw new IllegalArgumentException("an actual cost is 0 or more, got " + actual);
        }
        return settle.apply(actual);
    }

    /** This count, its give-back's and settle's answers or failures passed through {@code guard}. */
    Counted guarded(UnaryOperator<CompletionStage<Decision>> guard) {
        return new Counted(decision, () -> guard.apply(giveBack.get()), permitId,
                actual -> guard.apply(settle.apply(actual)), reservationId);
    }

    /** This count, its permit's or reservation's id (if any) passed through {@code rename}. */
    Counted withIds(UnaryOperator<String> rename) {
        return permitId == NO_ID && reservationId == NO_ID ? this : new Counted(decision, giveBack,
                permitId == NO_ID ? NO_ID : () -> rename.apply(permitId.get()), settle,
                reservationId == NO_ID ? NO_ID : () -> rename.apply(reservationId.get()));
    }

    @Override
    public String toString() {
        return "Counted[" + decision + "]";
    }
}
