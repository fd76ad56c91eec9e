package dev.sluice.store;

import dev.sluice.Decision;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A store's decision on one request ({@link CounterStore#count}), and how to take the request back when another rule
 * rejects it: so that a request rejected by one matched rule consumes nothing from the others; for a concurrency
 * permit ({@link CounterStore#acquireAsync}), how to release it, and the permit's id, by which any node sharing the
 * store releases it ({@link CounterStore#releaseAsync}). Immutable and thread-safe; {@link #giveBack()} is called at
 * most once for a count, and only for a granted decision; releasing a permit again does nothing.
 *
 * <p>A store that can take requests back (every Sluice store) undoes the count where it was made, as of the instant
 * it was made ({@link dev.sluice.algorithm.Policy#undo}); a rejection, a failure policy's answer that counted
 * nothing, and a store of another library keep the decision as it is ({@link #kept}). See
 * {@code docs/design/all-or-nothing.md}.
 */
public final class Counted {

    /** The id of what is not a permit: never asked for ({@link #permit()} answers empty). */
    private static final Supplier<String> NO_ID = () -> {
        throw new IllegalStateException("a count has no permit id");
    };

    private final Decision decision;
    private final Supplier<CompletionStage<Decision>> giveBack;
    /** {@link #NO_ID} for what is not a permit. */
    private final Supplier<String> permitId;

    private Counted(Decision decision, Supplier<CompletionStage<Decision>> giveBack, Supplier<String> permitId) {
        this.decision = Objects.requireNonNull(decision, "decision");
        this.giveBack = giveBack;
        this.permitId = permitId;
    }

    /** A decision with nothing to take back: a rejection, an answer that counted nothing, or a store that cannot. */
    public static Counted kept(Decision decision) {
        CompletionStage<Decision> same = CompletableFuture.completedFuture(decision);
        return new Counted(decision, () -> same, NO_ID);
    }

    /**
     * A granted decision that {@code giveBack} takes back, answering a bare look at the key's state after it (what
     * {@link CounterStore#peek peek} of cost 0 answers).
     */
    public static Counted undoable(Decision decision, Supplier<CompletionStage<Decision>> giveBack) {
        return new Counted(decision, Objects.requireNonNull(giveBack, "giveBack"), NO_ID);
    }

    /**
     * A granted concurrency permit: {@code release} releases it, as {@link CounterStore#releaseAsync} of its id does
     * from any node sharing the store. The id is made by {@code id} when asked for (most permits are released by
     * {@link #giveBack()} and never need theirs), never empty.
     */
    public static Counted permit(Decision decision, Supplier<String> id, Supplier<CompletionStage<Decision>> release) {
        Objects.requireNonNull(id, "id");
        return new Counted(decision, Objects.requireNonNull(release, "release"), id);
    }

    /**
     * The id of a granted permit, which {@link CounterStore#releaseAsync} takes on any node sharing the store; empty
     * for a count, a rejection, and a permit a failure policy granted without a counter (nothing to release).
     */
    public Optional<String> permit() {
        if (permitId == NO_ID) {
            return Optional.empty();
        }
        String id = permitId.get();
        if (id.isEmpty()) {
            throw new IllegalStateException("a store made an empty permit id");
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

    /** This count, its give-back's answer or failure passed through {@code guard}. */
    Counted guarded(UnaryOperator<CompletionStage<Decision>> guard) {
        return new Counted(decision, () -> guard.apply(giveBack.get()), permitId);
    }

    /** This count, its permit's id (if any) passed through {@code rename}. */
    Counted withPermitId(UnaryOperator<String> rename) {
        return permitId == NO_ID ? this : new Counted(decision, giveBack, () -> rename.apply(permitId.get()));
    }

    @Override
    public String toString() {
        return "Counted[" + decision + "]";
    }
}
