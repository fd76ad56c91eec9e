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

    /** What a rejection, an answer that counted nothing and a store of another library hold: nothing to take back. */
    private static final Held KEPT = new Held() {
        @Override
        public CompletionStage<Decision> giveBack(Decision decision) {
            return CompletableFuture.completedFuture(decision);
        }
    };

    private final Decision decision;
    private final Held held;

    Counted(Decision decision, Held held) {
        this.decision = Objects.requireNonNull(decision, "decision");
        this.held = held;
    }

    /**
     * What a store holds of one count, to take it back or settle it: one object per count, so that a store's own
     * count can be it (the local store's are). Anything but a reservation settles to the decision as it is; anything
     * but a permit or a reservation has no id.
     */
    interface Held {
        /** Takes the count back; {@code decision} is the count's. */
        CompletionStage<Decision> giveBack(Decision decision);

        /** Settles a reservation at {@code actual}, 0 or more; {@code decision} is the reservation's. */
        default CompletionStage<Decision> settle(Decision decision, long actual) {
            return CompletableFuture.completedFuture(decision);
        }

        /** The permit's id, made when asked for; empty for what is not a permit. */
        default Optional<String> permit() {
            return Optional.empty();
        }

        /** The reservation's id, made when asked for; empty for what is not a reservation settled by id. */
        default Optional<String> reservation() {
            return Optional.empty();
        }
    }

    /** A decision with nothing to take back: a rejection, an answer that counted nothing, or a store that cannot. */
    public static Counted kept(Decision decision) {
        return new Counted(decision, KEPT);
    }

    /**
     * A granted decision that {@code giveBack} takes back, answering a bare look at the key's state after it (what
     * {@link Command.Peek peek} of cost 0 answers).
     */
    public static Counted undoable(Decision decision, Supplier<CompletionStage<Decision>> giveBack) {
        Objects.requireNonNull(giveBack, "giveBack");
        return new Counted(decision, counted -> giveBack.get());
    }

    /**
     * A granted concurrency permit: {@code release} releases it, as {@link Command.Release} of its id does
     * from any node sharing the store. The id is made by {@code id} when asked for (most permits are released by
     * {@link #giveBack()} and never need theirs), never empty.
     */
    public static Counted permit(Decision decision, Supplier<String> id, Supplier<CompletionStage<Decision>> release) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(release, "release");
        return new Counted(decision, new Held() {
            @Override
            public CompletionStage<Decision> giveBack(Decision counted) {
                return release.get();
            }

            @Override
            public Optional<String> permit() {
                return Optional.of(made(id));
            }
        });
    }

    /**
     * A granted reservation of an estimate: {@code giveBack} takes it back whole (another rule rejected the request),
     * {@code settle} settles it at its actual cost, as {@link Command.Settle} of its id does from any node
     * sharing the store. The id is made by {@code id} when asked for, never empty.
     */
    public static Counted reservation(Decision decision, Supplier<CompletionStage<Decision>> giveBack,
                                      LongFunction<CompletionStage<Decision>> settle, Supplier<String> id) {
        Objects.requireNonNull(id, "id");
        return new Counted(decision, new Settled(giveBack, settle) {
            @Override
            public Optional<String> reservation() {
                return Optional.of(made(id));
            }
        });
    }

    /**
     * A granted reservation of a store that cannot settle it by id (a store of another library): {@code settle}
     * settles it where it was counted, and {@link #reservation()} is empty.
     */
    public static Counted reservation(Decision decision, Supplier<CompletionStage<Decision>> giveBack,
                                      LongFunction<CompletionStage<Decision>> settle) {
        return new Counted(decision, new Settled(giveBack, settle));
    }

    /** A reservation's give-back and settle as functions. */
    private static class Settled implements Held {
        private final Supplier<CompletionStage<Decision>> giveBack;
        private final LongFunction<CompletionStage<Decision>> settle;

        Settled(Supplier<CompletionStage<Decision>> giveBack, LongFunction<CompletionStage<Decision>> settle) {
            this.giveBack = Objects.requireNonNull(giveBack, "giveBack");
            this.settle = Objects.requireNonNull(settle, "settle");
        }

        @Override
        public CompletionStage<Decision> giveBack(Decision decision) {
            return giveBack.get();
        }

        @Override
        public CompletionStage<Decision> settle(Decision decision, long actual) {
            return settle.apply(actual);
        }
    }

    /** An id a store made, checked: never empty. */
    private static String made(Supplier<String> id) {
        String made = id.get();
        if (made.isEmpty()) {
            throw new IllegalStateException("a store made an empty permit or reservation id");
        }
        return made;
    }

    /**
     * The id of a granted permit, which {@link Command.Release} takes on any node sharing the store; empty
     * for a count, a rejection, and a permit a failure policy granted without a counter (nothing to release).
     */
    public Optional<String> permit() {
        return held.permit();
    }

    /**
     * The id of a granted reservation, which {@link Command.Settle} takes on any node sharing the store;
     * empty for anything else, a reservation a failure policy granted without a counter, and one of a store that
     * settles only where it counted.
     */
    public Optional<String> reservation() {
        return held.reservation();
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
        return held.giveBack(decision);
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
        return held.settle(decision, actual);
    }

    /** This count, its give-back's and settle's answers or failures passed through {@code guard}. */
    Counted guarded(UnaryOperator<CompletionStage<Decision>> guard) {
        return held == KEPT ? this : new Counted(decision, new Forwarding(held) {
            @Override
            public CompletionStage<Decision> giveBack(Decision counted) {
                return guard.apply(super.giveBack(counted));
            }

            @Override
            public CompletionStage<Decision> settle(Decision counted, long actual) {
                return guard.apply(super.settle(counted, actual));
            }
        });
    }

    /** This count, its permit's or reservation's id (if any) passed through {@code rename} when asked for. */
    Counted withIds(UnaryOperator<String> rename) {
        return held == KEPT ? this : new Counted(decision, new Forwarding(held) {
            @Override
            public Optional<String> permit() {
                return super.permit().map(rename);
            }

            @Override
            public Optional<String> reservation() {
                return super.reservation().map(rename);
            }
        });
    }

    /** A {@link Held} that does what another does; a decorator overrides what it changes. */
    private static class Forwarding implements Held {
        private final Held held;

        Forwarding(Held held) {
            this.held = held;
        }

        @Override
        public CompletionStage<Decision> giveBack(Decision decision) {
            return held.giveBack(decision);
        }

        @Override
        public CompletionStage<Decision> settle(Decision decision, long actual) {
            return held.settle(decision, actual);
        }

        @Override
        public Optional<String> permit() {
            return held.permit();
        }

        @Override
        public Optional<String> reservation() {
            return held.reservation();
        }
    }

    @Override
    public String toString() {
        return "Counted[" + decision + "]";
    }
}
