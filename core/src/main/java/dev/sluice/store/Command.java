package dev.sluice.store;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link CounterStore} is asked to do on one key, and what it answers ({@code R}): the store's whole vocabulary,
 * a closed set of values. A command checks its arguments when it is made, so that a caller's mistake never reaches a
 * store (or is taken for its failure), and says what a failure policy answers for it when no store can
 * ({@link #withoutStore}). Immutable and thread-safe.
 *
 * <p>Counting: {@link Decide} (count if it fits), {@link Count} (the same, and how to take it back should another rule
 * reject the request), {@link Estimate} (count an estimate, settle it at the request's end) and {@link Settle} (settle
 * one by its id from any node), {@link Record} (count a request already made), {@link Reserve} (take the earliest slot
 * within a wait). Looking: {@link Peek}. Concurrency: {@link Acquire} and {@link Release}. Operators: {@link Reset}.
 * Stores, decorators and how to write one: {@code docs/engine.md}.
 *
 * @param <R> the answer: a {@link Decision}, a {@link Counted} (a decision and how to undo or settle it) or, for a
 *     reset, {@link Void}
 */
public sealed interface Command<R> permits Command.Admission, Command.ById, Command.Peek, Command.Record,
        Command.Reserve, Command.Acquire, Command.Reset {

    /** {@link Decide}: whether {@code cost} permits fit the policy now (or within the delay) and, if so, count them. */
    static Decide decide(Policy policy, long cost, long maxDelayNanos) {
        return new Decide(policy, cost, maxDelayNanos);
    }

    /** {@link Count}: {@link Decide}, with a way to take a grant back. */
    static Count count(Policy policy, long cost, long maxDelayNanos) {
        return new Count(policy, cost, maxDelayNanos);
    }

    /** {@link Estimate}: counts an estimate, settled at the request's actual cost when it ends. */
    static Estimate estimate(Policy policy, long estimate, long maxDelayNanos) {
        return new Estimate(policy, estimate, maxDelayNanos);
    }

    /** {@link Settle}: settles the reservation {@code reservation}, counted at {@code estimate}, at {@code actual}. */
    static Settle settle(Policy policy, long estimate, long actual, String reservation) {
        return new Settle(policy, estimate, actual, reservation);
    }

    /** {@link Peek}: what a decision of {@code cost} permits would be now (0: the bare state), counting nothing. */
    static Peek peek(Policy policy, long cost) {
        return new Peek(policy, cost);
    }

    /** {@link Record}: counts a request of {@code cost} made {@code ageNanos} ago, whether or not it fits. */
    static Record record(Policy policy, long cost, long ageNanos) {
        return new Record(policy, cost, ageNanos);
    }

    /** {@link Reserve}: takes the earliest slot within {@code maxWaitNanos} at which {@code cost} fits. */
    static Reserve reserve(Policy policy, long cost, long maxWaitNanos) {
        return new Reserve(policy, cost, maxWaitNanos);
    }

    /** {@link Acquire}: takes one concurrency permit of {@code limit}. */
    static Acquire acquire(ConcurrencyLimit limit) {
        return new Acquire(limit);
    }

    /** {@link Release}: releases the permit {@code permit} of {@code limit}. */
    static Release release(ConcurrencyLimit limit, String permit) {
        return new Release(limit, permit);
    }

    /** {@link Reset}: forgets the key's state and permits. */
    static Reset reset() {
        return Reset.INSTANCE;
    }

    /**
     * This command offering no wait for a later slot (a queueing algorithm's delay, a reservation's wait): for a caller
     * that cannot hold its request, such as a JAX-RS filter. The commands that never wait are themselves.
     */
    default Command<R> withoutWait() {
        return this;
    }

    /**
     * What answers this command when the store cannot and a failure policy decides without it: granted
     * ({@code allow}) or refused, marked {@link Decision#storeUnavailable()}, counting nothing. Empty for what only
     * the store can do (settle or release by id, reset): the command then fails.
     */
    Optional<R> withoutStore(boolean allow);

    /**
     * A command that admits or refuses a request of {@code cost} permits under a policy, its answer holding the
     * decision: what a rejection cache can answer from a rejection it remembers.
     */
    sealed interface Admission<R> extends Command<R> permits Decide, Counting {

        Policy policy();

        long cost();

        long maxDelayNanos();

        /** The answer holding {@code decision}, with nothing to take back. */
        R kept(Decision decision);

        /** The decision {@code answer} holds. */
        Decision decisionOf(R answer);

        @Override
        default Optional<R> withoutStore(boolean allow) {
            return Optional.of(kept(allow ? granted(policy(), cost()) : refused(policy(), cost())));
        }
    }

    /** An admission that answers a {@link Counted}: what was granted, and how to take it back or settle it. */
    sealed interface Counting extends Admission<Counted> permits Count, Estimate {

        @Override
        default Counted kept(Decision decision) {
            return Counted.kept(decision);
        }

        @Override
        default Decision decisionOf(Counted answer) {
            return answer.decision();
        }
    }

    /** A command on something a grant named by its id: found on any node sharing the store. */
    sealed interface ById<R> extends Command<R> permits Settle, Release {

        /** The id: a grant's {@link Counted#reservation()} or {@link Counted#permit()}. */
        String id();

        /** This command on another id (a failure policy's own ids, stripped of their prefix). */
        ById<R> withId(String newId);

        /** What is left as it was when this command fails, for its error. */
        String whenLost();

        @Override
        default Optional<R> withoutStore(boolean allow) {
            return Optional.empty();
        }
    }

    /**
     * Decides whether {@code cost} permits fit the key's policy now and, if so, counts them, in one atomic step.
     *
     * @param cost permits asked for, 0 or more
     * @param maxDelayNanos for queueing algorithms, the longest delay the caller accepts for its slot
     */
    record Decide(Policy policy, long cost, long maxDelayNanos) implements Admission<Decision> {

        public Decide {
            Objects.requireNonNull(policy, "policy");
            checkCost(cost, 0);
        }

        @Override
        public Decide withoutWait() {
            return maxDelayNanos == 0 ? this : new Decide(policy, cost, 0);
        }

        @Override
        public Decision kept(Decision decision) {
            return decision;
        }

        @Override
        public Decision decisionOf(Decision answer) {
            return answer;
        }
    }

    /**
     * Decides as {@link Decide} does, and says how to take the request back should another rule reject it
     * ({@link Counted#giveBack()}): what a rule set uses so that a rejected request consumes nothing from the rules
     * that granted it. A store that cannot take back answers {@link Counted#kept}; every Sluice store takes back.
     */
    record Count(Policy policy, long cost, long maxDelayNanos) implements Counting {

        public Count {
            Objects.requireNonNull(policy, "policy");
            checkCost(cost, 0);
        }

        @Override
        public Count withoutWait() {
            return maxDelayNanos == 0 ? this : new Count(policy, cost, 0);
        }
    }

    /**
     * Counts a request whose cost is known only when it ends (tokens, bytes, work) at its {@code cost}, an estimate,
     * as {@link Count} counts, and says how to settle it at its actual cost ({@link Counted#settle}): an excess is
     * charged, a debt the key pays back before its next grant; a difference below the estimate is given back, never
     * more permissively than had the request been counted at its actual cost from the start ({@link Policy#settle};
     * {@code docs/design/costs.md}). A grant's {@link Counted#reservation()} is its id for {@link Settle} on any node.
     *
     * @param cost the estimate, at least 1
     */
    record Estimate(Policy policy, long cost, long maxDelayNanos) implements Counting {

        public Estimate {
            Objects.requireNonNull(policy, "policy");
            checkCost(cost, 1);
        }

        @Override
        public Estimate withoutWait() {
            return maxDelayNanos == 0 ? this : new Estimate(policy, cost, 0);
        }
    }

    /**
     * Settles the reservation {@code id} (a grant's {@link Counted#reservation()}), counted at {@code estimate}, at
     * its {@code actual} cost, from any node sharing the store: what the grant's {@link Counted#settle} does where it
     * was counted. Each execution settles: settle a reservation once. Answers a bare look at the key's state after it.
     * A store completes it exceptionally with {@link IllegalArgumentException} when the id is none of its kind.
     */
    record Settle(Policy policy, long estimate, long actual, String id) implements ById<Decision> {

        public Settle {
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(id, "id");
            if (estimate < 1 || actual < 0) {
                throw new IllegalArgumentException("a settle needs an estimate of at least 1 and an actual cost of 0"
                        + " or more, got estimate " + estimate + " and actual cost " + actual);
            }
        }

        @Override
        public Settle withId(String newId) {
            return new Settle(policy, estimate, actual, newId);
        }

        @Override
        public String whenLost() {
            return "settle a reservation in time; its estimate stays counted";
        }
    }

    /** What a {@link Decide} of {@code cost} permits would answer now (0: the bare state), counting nothing. */
    record Peek(Policy policy, long cost) implements Command<Decision> {

        public Peek {
            Objects.requireNonNull(policy, "policy");
            checkCost(cost, 0);
        }

        @Override
        public Optional<Decision> withoutStore(boolean allow) {
            return Optional.of(allow ? granted(policy, cost) : refused(policy, cost));
        }
    }

    /**
     * Counts a request of {@code cost} permits made {@code ageNanos} before the store's now, whether or not it fits
     * (it was made: the counters must say so), in the window or step where it belongs ({@link Policy#record}). The
     * age, not an instant, crosses to the store, which reads its own time. Answers what a request of one permit would
     * get right after, counting nothing more.
     */
    record Record(Policy policy, long cost, long ageNanos) implements Command<Decision> {

        public Record {
            Objects.requireNonNull(policy, "policy");
            policy.algorithm().checkRecord(cost, ageNanos);
        }

        @Override
        public Optional<Decision> withoutStore(boolean allow) {
            return Optional.of(allow ? granted(policy, 1) : refused(policy, 1));
        }
    }

    /**
     * Takes the earliest slot within {@code maxWaitNanos} at which {@code cost} permits fit, and counts them there, in
     * one atomic step ({@link Policy#reserve}): allowed with {@link Decision#delayNanos()} the wait until the slot, or
     * rejected, counting nothing, when the slot is further away. Two callers never get the same slot.
     */
    record Reserve(Policy policy, long cost, long maxWaitNanos) implements Command<Decision> {

        public Reserve {
            Objects.requireNonNull(policy, "policy");
            checkCost(cost, 0);
        }

        @Override
        public Reserve withoutWait() {
            return maxWaitNanos == 0 ? this : new Reserve(policy, cost, 0);
        }

        @Override
        public Optional<Decision> withoutStore(boolean allow) {
            return Optional.of(allow ? granted(policy, cost) : refused(policy, cost));
        }
    }

    /**
     * Takes one permit of {@code limit} if fewer than {@link ConcurrencyLimit#permits()} are held, in one atomic step.
     * A grant's {@link Counted#giveBack()} releases it (a second release does nothing); a permit never released
     * returns on its own {@link ConcurrencyLimit#maxHold()} after it was taken, and a store shared by several nodes
     * also returns the permits of a node that left. Remaining: the permits free after it; a rejection's retry-after:
     * until the earliest held permit's maximum hold ends. A grant's {@link Counted#permit()} is its id for
     * {@link Release}. A remote store's answer refuses {@code cancel} once its call is sent: a caller that stops
     * waiting then still gets a late grant, and releases it. See {@code docs/design/concurrency.md}.
     */
    record Acquire(ConcurrencyLimit limit) implements Command<Counted> {

        public Acquire {
            Objects.requireNonNull(limit, "limit");
        }

        @Override
        public Optional<Counted> withoutStore(boolean allow) {
            long permits = limit.permits();
            long retry = FailurePolicyStore.REJECT_RETRY_AFTER.toNanos();
            return Optional.of(Counted.kept(allow
                    ? Decision.granted(permits, limit.name()).remaining(permits - 1).storeUnavailable().build()
                    : Decision.rejected(permits, limit.name(), retry).resetIn(retry).storeUnavailable().build()));
        }
    }

    /**
     * Releases the permit {@code id} (a grant's {@link Counted#permit()}) from any node sharing the store: what the
     * grant's {@link Counted#giveBack()} does where it was taken. Idempotent. Answers a bare look at the key's permits
     * after it. A store completes it exceptionally with {@link IllegalArgumentException} when the id is none of its
     * kind.
     */
    record Release(ConcurrencyLimit limit, String id) implements ById<Decision> {

        public Release {
            Objects.requireNonNull(limit, "limit");
            Objects.requireNonNull(id, "id");
        }

        @Override
        public Release withId(String newId) {
            return new Release(limit, newId);
        }

        @Override
        public String whenLost() {
            return "release a concurrency permit in time; it returns at its maximum hold";
        }
    }

    /**
     * Forgets the key's state, whatever its policy, and the permits it holds: its next request starts from full
     * capacity. For operators (a key counted by mistake); a key with no state is left as it is. To read a key's state,
     * {@link Peek} it at a cost of 0.
     */
    record Reset() implements Command<Void> {

        private static final Reset INSTANCE = new Reset();

        @Override
        public Optional<Void> withoutStore(boolean allow) {
            return Optional.empty();
        }
    }

    private static void checkCost(long cost, long least) {
        if (cost < least) {
            throw new IllegalArgumentException("a cost is " + least + " or more, got " + cost);
        }
    }

    /** What a failure policy that allows answers: the policy's full capacity, less the cost. */
    private static Decision granted(Policy policy, long cost) {
        long capacity = policy.capacity();
        return Decision.granted(capacity, policy.limits().get(0).name()).remaining(Math.max(0, capacity - cost))
                .storeUnavailable().build();
    }

    /** What a failure policy that rejects answers: retry after {@link FailurePolicyStore#REJECT_RETRY_AFTER}. */
    private static Decision refused(Policy policy, long cost) {
        long capacity = policy.capacity();
        long retry = FailurePolicyStore.REJECT_RETRY_AFTER.toNanos();
        return Decision.rejected(capacity, policy.limits().get(0).name(), cost > capacity ? Decision.NEVER : retry)
                .resetIn(retry).storeUnavailable().build();
    }
}
