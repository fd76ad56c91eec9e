package dev.sluice.store;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Where counters live: a map from key to algorithm state in which each decision is one atomic step.
 *
 * <p>A store reads the time itself (the local store from its {@code TimeSource}, the Hazelcast store on the member
 * that owns the key) and runs {@link Policy#apply} on the key's state atomically: concurrent calls on one key, from
 * any thread or node, behave as if made one after another. Never read-then-write. Keys whose state is back to full
 * capacity may be forgotten; the number of keys is bounded.
 *
 * <p>Implementations are thread-safe. A key's state belongs to one policy: callers give distinct policies distinct
 * keys.
 */
public interface CounterStore extends AutoCloseable {

    /**
     * Decides whether {@code cost} permits fit the key's policy now and, if so, counts them, in one atomic step.
     *
     * @param cost permits asked for, at least 1
     * @param maxDelayNanos for queueing algorithms, the longest delay the caller accepts for its slot
     */
    Decision apply(String key, Policy policy, long cost, long maxDelayNanos);

    /**
     * Like {@link #apply}, without blocking the caller; the default completes on the calling thread.
     *
     * <p>A caller that stops waiting cancels the returned future ({@code toCompletableFuture().cancel(false)}). A store
     * that holds calls before sending them (the Hazelcast store's batches) then withdraws one it has not sent, which
     * is never counted; cancelling a call already sent, which may still count, is refused and the future completes
     * when the store answers. A store whose futures do not keep this rule lets callers that bound their calls in
     * flight ({@link FailurePolicyStore#withMaxPending}) count a sent call as ended early.
     */
    default CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return onCallingThread(() -> apply(key, policy, cost, maxDelayNanos));
    }

    /**
     * Like {@link #applyAsync}, and says how to take the request back should another rule reject it
     * ({@link Counted#giveBack()}): what a rule set uses so that a rejected request consumes nothing from the rules
     * that granted it.
     *
     * <p>The default applies and cannot take back ({@link Counted#kept}): with a store of another library, a request
     * one rule rejects stays counted by the others, as before this method existed. Every Sluice store takes back.
     */
    default CompletionStage<Counted> countAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return applyAsync(key, policy, cost, maxDelayNanos).thenApply(Counted::kept);
    }

    /**
     * Counts a request whose cost is known only when it ends (tokens, bytes, work) at its {@code estimate}, as
     * {@link #countAsync} counts, and says how to settle it at its actual cost ({@link Counted#settle}): an excess is
     * charged, a debt the key pays back before its next grant; a difference below the estimate is given back, never
     * more permissively than had the request been counted at its actual cost from the start
     * ({@link Policy#settle}; {@code docs/design/costs.md}). A grant's {@link Counted#reservation()} is its id for
     * {@link #settleAsync} on any node sharing the store.
     *
     * <p>The default applies, and its settle charges an excess with {@link #recordAsync} and keeps an estimate above
     * the actual cost: a store of another library never gives back, and charges an excess only if it records. Every
     * Sluice store gives back.
     *
     * @param estimate the cost counted now, at least 1
     */
    default CompletionStage<Counted> estimateAsync(String key, Policy policy, long estimate, long maxDelayNanos) {
        return applyAsync(key, policy, estimate, maxDelayNanos).thenApply(decision -> !decision.allowed()
                ? Counted.kept(decision)
                : Counted.reservation(decision, () -> CompletableFuture.completedFuture(decision),
                        actual -> chargeExcess(this, key, policy, estimate, actual)));
    }

    /**
     * Settles the reservation {@code reservation} of the key (a grant's {@link Counted#reservation()}), counted at
     * {@code estimate}, at its {@code actual} cost, from this node or any other sharing the store, without blocking
     * the caller: what the grant's {@link Counted#settle} does where it was counted. Each call settles: settle a
     * reservation once (the limiter service keeps a mark of the reservations it settled). Completes with a bare look
     * at the key's state after it.
     *
     * <p>The default charges an excess with {@link #recordAsync} and keeps an estimate above the actual cost, as the
     * default {@link #estimateAsync} does; every Sluice store gives back.
     *
     * @throws IllegalArgumentException (or completes exceptionally with it) when {@code reservation} is no id of this
     *     kind of store, {@code estimate} is below 1 or {@code actual} negative
     */
    default CompletionStage<Decision> settleAsync(String key, Policy policy, long estimate, long actual,
                                                  String reservation) {
        return chargeExcess(this, key, policy, estimate, actual);
    }

    /**
     * What a store that cannot give back settles: an excess recorded now (a debt), the estimate kept otherwise
     * (a bare look at the key).
     */
    private static CompletionStage<Decision> chargeExcess(CounterStore store, String key, Policy policy,
                                                          long estimate, long actual) {
        if (estimate < 1 || actual < 0) {
            throw new IllegalArgumentException("a settle needs an estimate of at least 1 and an actual cost of 0 or"
                    + " more, got estimate " + estimate + " and actual cost " + actual);
        }
        return actual > estimate ? store.recordAsync(key, policy, actual - estimate, 0)
                : store.peekAsync(key, policy, 0);
    }

    /**
     * What {@link #apply} would decide now for {@code cost} permits (0 for the bare state), without counting
     * anything.
     */
    Decision peek(String key, Policy policy, long cost);

    /** Like {@link #peek}, without blocking the caller; the default completes on the calling thread. */
    default CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        return onCallingThread(() -> peek(key, policy, cost));
    }

    /**
     * Counts a request of {@code cost} permits that was made {@code ageNanos} before the store's now, whether or not it
     * fits (it was made: the counters must say so), in the window or step where it belongs, in one atomic step; see
     * {@link Policy#record}. The age, not an instant, crosses to the store, because the store reads its own time (a
     * Hazelcast member's): the caller measures the age on its clock.
     *
     * <p>The default throws {@link UnsupportedOperationException}: a store of another library must implement it to
     * count past requests. Every Sluice store does.
     *
     * @return what a request of one permit would get right after ({@link #peek peek(key, policy, 1)}), counting
     *     nothing more
     * @throws IllegalArgumentException when the policy's algorithm cannot count past requests
     *     ({@link dev.sluice.algorithm.Algorithm#countsPastRequests()}), {@code cost} is below 1 or {@code ageNanos}
     *     negative
     */
    default Decision record(String key, Policy policy, long cost, long ageNanos) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot count past requests");
    }

    /** Like {@link #record}, without blocking the caller; the default completes on the calling thread. */
    default CompletionStage<Decision> recordAsync(String key, Policy policy, long cost, long ageNanos) {
        return onCallingThread(() -> record(key, policy, cost, ageNanos));
    }

    /**
     * Takes the earliest slot within {@code maxWaitNanos} at which {@code cost} permits fit, and counts them there,
     * in one atomic step; see {@link Policy#reserve}: allowed with {@link Decision#delayNanos()} the wait until the
     * slot, or rejected, counting nothing, when the slot is further away. Two callers never get the same slot.
     *
     * <p>The default throws {@link UnsupportedOperationException}; every Sluice store implements it.
     */
    default Decision reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot reserve slots");
    }

    /** Like {@link #reserve}, without blocking the caller; the default completes on the calling thread. */
    default CompletionStage<Decision> reserveAsync(String key, Policy policy, long cost, long maxWaitNanos) {
        return onCallingThread(() -> reserve(key, policy, cost, maxWaitNanos));
    }

    /**
     * Takes one permit of {@code limit} for the key if fewer than {@link ConcurrencyLimit#permits()} are held, in one
     * atomic step, without blocking the caller. A grant's {@link Counted#giveBack()} releases the permit (idempotent:
     * a second release does nothing); a permit never released returns on its own {@link ConcurrencyLimit#maxHold()}
     * after it was taken, and a store shared by several nodes also returns the permits of a node that left. The
     * decision: limit the permits, remaining those free after it; a rejection's retry-after is until the earliest held
     * permit's maximum hold ends, the latest instant at which one returns with nobody releasing it. A key's permits
     * belong to one limit: callers give distinct limits distinct keys; only the maximum hold may differ between the
     * acquisitions of a key (a lease shorter than the limit's: {@code ConcurrencyLimit.of(n, lease).named(name)}),
     * each permit then returning at its own. A grant's {@link Counted#permit()} is its id for {@link #releaseAsync}.
     * A remote store's answer must refuse {@code cancel} once its call is sent: a caller that stops waiting (the
     * failure policy's timeout) then still gets a late grant, and releases it. See {@code docs/design/concurrency.md}.
     *
     * <p>The default throws {@link UnsupportedOperationException}; every Sluice store implements it.
     */
    default CompletionStage<Counted> acquireAsync(String key, ConcurrencyLimit limit) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot hold concurrency permits");
    }

    /**
     * Releases the permit {@code permit} of the key (a grant's {@link Counted#permit()}), from this node or any other
     * sharing the store, without blocking the caller: what the grant's {@link Counted#giveBack()} does where it was
     * taken. Idempotent: a permit released already, past its maximum hold, or freed with its node is left as it is.
     * Completes with a bare look at the key's permits after it ({@code limit} gives its numbers and name).
     *
     * <p>The default throws {@link UnsupportedOperationException}; every Sluice store implements it.
     *
     * @throws IllegalArgumentException (or completes exceptionally with it) when {@code permit} is no id of this
     *                                  kind of store
     */
    default CompletionStage<Decision> releaseAsync(String key, ConcurrencyLimit limit, String permit) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot release concurrency permits by id");
    }

    /**
     * Forgets the key's state, whatever its policy, and the permits it holds: its next request starts from full
     * capacity. For operators (a key
     * counted by mistake); a key with no state is left as it is. To read a key's state without changing it, peek at
     * it with a cost of 0: {@link #peek peek(key, policy, 0)} gives its limit, remaining permits, and the time to its
     * next permit and to full capacity.
     *
     * <p>The default throws {@link UnsupportedOperationException}; every Sluice store implements it.
     */
    default void reset(String key) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot reset keys");
    }

    /**
     * The overrides of limits that every instance sharing this store applies ({@link LimitOverride}): the local store
     * keeps them in memory, the Hazelcast store in the cluster. Ask once and keep the answer; rule sets read it on
     * every request. Stores in front of another pass it on.
     *
     * <p>The default is {@link LimitOverrides#unsupported()}: none, and none can be set. The local store and the
     * Hazelcast store keep them (a {@code CompareAndSetCounterStore} used alone does not).
     */
    default LimitOverrides overrides() {
        return LimitOverrides.unsupported();
    }

    /**
     * How the store is doing: what it is, the cluster members it sees, and the calls it could not decide in the last
     * minute. The default is {@link StoreHealth#LOCAL}: a store that decides on its own. Cheap enough to call for
     * every health check or metrics scrape; never throws.
     */
    default StoreHealth health() {
        return StoreHealth.LOCAL;
    }

    /**
     * The shared entries named {@code name} (letters, digits, {@code -} and {@code _}): small texts that every instance
     * sharing this store sees, such as the console's snapshots. Ask once and keep the answer.
     *
     * <p>The default gives entries the returned object alone holds: a store with no cluster shares with no one else.
     * Stores over a cluster keep them there; stores in front of another pass the question on.
     */
    default SharedEntries sharedEntries(String name) {
        return SharedEntries.inMemory(TimeSource.system());
    }

    /** Releases what the store holds (threads, connections, an embedded cluster member). Idempotent. */
    @Override
    void close();

    /** The async defaults: {@code call} run now, on the calling thread, its result or failure as a completed stage. */
    private static CompletionStage<Decision> onCallingThread(Supplier<Decision> call) {
        try {
            return CompletableFuture.completedFuture(call.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
