package dev.sluice.limiter;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Durations;
import dev.sluice.internal.OverrideCounters;
import dev.sluice.rules.ActualCost;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.LimitOverrides;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.PermitQueue;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * Limits the rate at which each key may take permits, under one {@link Policy}, and how many of its permits it may
 * hold at once, under a {@link ConcurrencyLimit}: either or both, counting in one {@link CounterStore}.
 *
 * <pre>{@code
 * RateLimiter limiter = RateLimiter.builder()
 *         .policy(Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(100, Duration.ofMinutes(1))))
 *         .build();
 * if (limiter.tryAcquire(clientIp).allowed()) { ... }
 * }</pre>
 *
 * <p>{@link #tryAcquire} decides and counts in one atomic step of the store, so any number of threads (and, with a
 * shared store, of nodes) never admit more than the policy allows. {@link #acquire} waits for permits, at most a
 * given time. {@link #tryAcquirePermit} takes a concurrency permit, held until the returned {@link Permit} is closed
 * (all or nothing with the policy, when the limiter has both); {@link #acquirePermitAsync} waits for one, first come
 * first served. Overrides of the store ({@link #setOverride}) block a key, exempt it or count it under other limits,
 * for every limiter of the same {@linkplain Builder#id id} sharing the store, until they end
 * ({@code docs/design/overrides.md}). Thread-safe.
 */
public final class RateLimiter {

    /**
     * What a key's permit key adds, so that its permits and its rate counter are distinct keys of the store: a key's
     * state belongs to one policy or limit.
     */
    private static final String PERMIT_KEY_SUFFIX = "|permits";

    /** The id of a limiter built without one ({@link Builder#id}). */
    public static final String DEFAULT_ID = "rate-limiter";


    /** The id overrides name this limiter by. */
    private final String id;
    /** Null for a limiter of a concurrency limit alone. */
    private final @Nullable Policy policy;
    /** Null for a limiter without a concurrency limit. */
    private final @Nullable ConcurrencyLimit concurrency;
    private final CounterStore store;
    private final LimitOverrides overrides;
    private final TimeSource time;
    /** Where {@link #acquirePermitAsync} waits; it schedules nothing while no one waits. */
    private final PermitQueue waiters;
    /** The counter of each distinct override limits (its policy, and its keys' suffix), made once. */
    private final OverrideCounters<List<Limit>, OverrideCounter> overrideCounters;

    private RateLimiter(String id, @Nullable Policy policy, @Nullable ConcurrencyLimit concurrency, CounterStore store,
                        TimeSource time) {
        this.id = id;
        this.policy = policy;
        this.concurrency = concurrency;
        this.store = store;
        this.overrides = store.services().overrides();
        this.time = time;
        this.waiters = new PermitQueue(time, WaitScheduler.SHARED, PermitQueue.DEFAULT_RETRY);
        this.overrideCounters = new OverrideCounters<>(limits -> OverrideCounter.of(policy(), limits));
    }

    /** The daemon thread on which every limiter's waits retry and time out, started on first use. */
    private static final class WaitScheduler {
        static final ScheduledExecutorService SHARED = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "sluice-permit-wait");
            thread.setDaemon(true);
            return thread;
        });
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The rate policy.
     *
     * @throws IllegalStateException for a limiter of a concurrency limit alone
     */
    public Policy policy() {
        if (policy == null) {
            throw new IllegalStateException("this limiter has a concurrency limit and no rate policy");
        }
        return policy;
    }

    /** The concurrency limit; empty for a limiter of a rate policy alone. */
    public Optional<ConcurrencyLimit> concurrency() {
        return Optional.ofNullable(concurrency);
    }

    /** The id overrides name this limiter by, as a rule's ({@link Builder#id}). */
    public String id() {
        return id;
    }

    /**
     * Sets the override {@code override} builds, as of the store's time, replacing any of its target: for every
     * limiter of this id counting in the store (every instance sharing it), a key blocked, exempt or counted under
     * other limits, or every key under other limits, until it ends. It applies to {@link #tryAcquire},
     * {@link #acquire} and {@link #tryAcquirePermit}; {@link #peek} and {@link #timeToNextPermit} read the limiter's
     * own policy. See {@code docs/design/overrides.md}.
     *
     * @return the override set
     * @throws IllegalArgumentException naming the problem: another id than this limiter's, limits for a limiter of a
     *     concurrency limit alone, limits the policy's algorithm cannot take, and those of
     *     {@link LimitOverride.Builder#build}
     * @throws UnsupportedOperationException for a store that keeps no overrides
     */
    public LimitOverride setOverride(LimitOverride.Builder override) {
        LimitOverride built = override.build(overrides.now());
        if (!built.ruleId().equals(id)) {
            throw new IllegalArgumentException("this limiter's id is '" + id + "'; the override names '"
                    + built.ruleId() + "'");
        }
        built.checkAppliesTo("limiter '" + id + "'", Optional.ofNullable(policy));
        return overrides.set(built);
    }

    /** The overrides of this limiter's id in force, the limiter's own (every key) first, then by key. */
    public List<LimitOverride> overrides() {
        return overrides.list().stream().filter(o -> o.ruleId().equals(id)).toList();
    }

    /**
     * Removes the override of {@code key}, or of every key when {@code key} is empty, logging who removed it.
     *
     * @return the override removed; empty when there was none
     */
    public Optional<LimitOverride> removeOverride(Optional<String> key, String removedBy) {
        return overrides.remove(new LimitOverride.Target(id, key), removedBy);
    }

    /**
     * Takes a concurrency permit for {@code key} if fewer than the limit's permits are held now, in one atomic step of
     * the store, and returns it, to be {@linkplain Permit#close() closed} when the work ends. With a rate policy too,
     * one permit of the policy is counted first; a request either of them rejects takes nothing from the other.
     *
     * @throws IllegalStateException for a limiter without a concurrency limit
     */
    public Permit tryAcquirePermit(String key) {
        return acquirePermitAsync(key, Duration.ZERO).toCompletableFuture().join();
    }

    /**
     * Takes a concurrency permit for {@code key}, waiting for one at most {@code maxWait} without holding a thread:
     * first come first served among this limiter's waiters of the key (a new caller never takes a permit ahead of
     * them); a permit released through this limiter goes to the key's first waiter, and waiters try again every
     * {@link PermitQueue#DEFAULT_RETRY} for permits released elsewhere (another node, another limiter). Completes with
     * the granted permit, or with a rejection when the wait ends first (by the limiter's time source) or a rate limit
     * rejects at once. With a rate policy, one permit of the policy is counted when the call is made (never again
     * when the permit comes) and given back when no concurrency permit comes. Cancelling the stage's future (a caller
     * that gives up) leaves the queue and takes nothing. See {@code docs/design/concurrency.md}.
     *
     * @throws IllegalStateException for a limiter without a concurrency limit
     * @throws IllegalArgumentException for a negative {@code maxWait}
     */
    public CompletionStage<Permit> acquirePermitAsync(String key, Duration maxWait) {
        if (concurrency == null) {
            throw new IllegalStateException("this limiter has no concurrency limit");
        }
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, got " + maxWait);
        }
        Optional<LimitOverride> override = overrideOf(key);
        if (override.isPresent() && override.get().kind() != LimitOverride.Kind.LIMITS) {
            Decision decided = override.get().decision(concurrency.permits(), overrides.now());
            return CompletableFuture.completedFuture(new Permit(decided, Counted.kept(decided)));
        }
        Counted rate = null;
        if (policy != null) {
            Counter counter = counter(key, policy, override);
            rate = store.executeAsync(counter.key(), Command.count(counter.policy(), 1,
                    Long.MAX_VALUE)).toCompletableFuture().join();
            if (!rate.decision().allowed()) {
                return CompletableFuture.completedFuture(new Permit(rate.decision(), rate));
            }
        }
        Counted counted = rate;
        CompletableFuture<Counted> waiting = waiters.acquire(store, key + PERMIT_KEY_SUFFIX, concurrency, maxWait,
                () -> { });
        CompletableFuture<Permit> permit = waiting.thenApply(held -> {
            if (!held.decision().allowed() && counted != null) {
                counted.giveBack();
            }
            return new Permit(held.decision(), held);
        });
        permit.whenComplete((answer, failure) -> {
            if (!permit.isCancelled()) {
                return;
            }
            if (!waiting.cancel(false)) {
                // The permit came as the caller gave up: it goes back (releasing twice does nothing).
                waiting.thenAccept(Counted::giveBack);
            }
            if (counted != null) {
                counted.giveBack();
            }
        });
        return permit;
    }

    /**
     * Reserves {@code estimate} of the policy's unit (such as tokens: {@link Policy#inUnit}) for {@code key} if the
     * policy grants it now, in one atomic step, for work whose cost is known only when it ends: settle the answer at
     * the actual cost ({@link Permit#settle}); closed without a settle, it keeps the estimate. An excess is charged as
     * a debt the key pays back before its next grant, a difference below the estimate given back
     * ({@code docs/design/costs.md}). Overrides apply as to {@link #tryAcquire}.
     *
     * <pre>{@code
     * try (Permit tokens = limiter.tryReserve(apiKey, maxTokens)) {
     *     if (!tokens.granted()) { ... reject ... }
     *     tokens.settle(callTheModel().tokensUsed());
     * }
     * }</pre>
     *
     * @throws IllegalArgumentException if {@code estimate < 1}
     * @throws IllegalStateException for a limiter of a concurrency limit alone
     */
    public Permit tryReserve(String key, long estimate) {
        Policy rates = policy();
        requirePositive(estimate);
        Optional<LimitOverride> override = overrideOf(key);
        if (override.isPresent() && override.get().kind() != LimitOverride.Kind.LIMITS) {
            Decision decided = override.get().decision(rates.capacity(), overrides.now());
            return new Permit(decided, Counted.kept(decided), estimate, ActualCost.defaultMax(rates));
        }
        Counter counter = counter(key, rates, override);
        Counted reserved = store.executeAsync(counter.key(), Command.estimate(counter.policy(), estimate,
                0)).toCompletableFuture()
                .join();
        return new Permit(reserved.decision(), reserved, estimate, ActualCost.defaultMax(counter.policy()));
    }

    /** Takes one permit for {@code key} if it is available now; see {@link #tryAcquire(String, long)}. */
    public Decision tryAcquire(String key) {
        return tryAcquire(key, 1);
    }

    /**
     * Takes {@code cost} permits for {@code key} if the policy grants them now, in one atomic step. Under the leaky
     * bucket a grant may carry a {@linkplain Decision#delay() delay}: the caller's slot in the queue, to be waited
     * for before proceeding. A cost above the capacity is rejected with {@link Decision#canSucceed()} false.
     *
     * @throws IllegalArgumentException if {@code cost < 1}
     */
    public Decision tryAcquire(String key, long cost) {
        return decide(key, policy(), requirePositive(cost), Long.MAX_VALUE);
    }

    /** Decides {@code cost} permits for {@code key} under its override, if any, else under {@code rates}. */
    private Decision decide(String key, Policy rates, long cost, long maxDelayNanos) {
        Optional<LimitOverride> override = overrideOf(key);
        if (override.isPresent() && override.get().kind() != LimitOverride.Kind.LIMITS) {
            return override.get().decision(rates.capacity(), overrides.now());
        }
        Counter counter = counter(key, rates, override);
        return store.execute(counter.key(), Command.decide(counter.policy(), cost, maxDelayNanos));
    }

    /** The override in force for {@code key}, if any: one volatile read while there are none. */
    private Optional<LimitOverride> overrideOf(String key) {
        LimitOverrides.Active active = overrides.active();
        return active.isEmpty() ? Optional.empty() : active.find(id, key);
    }

    /** A counter key and the policy it counts under. */
    private record Counter(String key, Policy policy) {
    }

    /** Where the keys under override limits count: the limits' policy, and the suffix of their counter keys. */
    private record OverrideCounter(Policy policy, String suffix) {

        static OverrideCounter of(Policy rates, List<Limit> limits) {
            StringBuilder suffix = new StringBuilder("|override");
            for (Limit limit : limits) {
                suffix.append(' ').append(limit.permits()).append('/').append(limit.periodNanos()).append("ns/")
                        .append(limit.capacity());
            }
            return new OverrideCounter(rates.withLimits(limits), suffix.toString());
        }
    }

    /**
     * Where {@code key} is counted: under {@code rates} at {@code key}, or under an override's limits at {@code key}
     * followed by {@code |override } and the limits (permits, period in nanoseconds and capacity of each), so that
     * every limiter of this id on every instance counts the override's limits at one key, apart from the own count.
     */
    private Counter counter(String key, Policy rates, Optional<LimitOverride> override) {
        if (override.isEmpty()) {
            return new Counter(key, rates);
        }
        OverrideCounter other = overrideCounters.of(override.get().limits());
        return new Counter(key + other.suffix(), other.policy());
    }

    /** The key's state now (remaining permits, reset time), without counting anything. */
    public Decision peek(String key) {
        return store.execute(key, Command.peek(policy(), 0));
    }

    /**
     * How long until {@code cost} permits would be granted to {@code key}: zero when they would be now, the queue
     * delay under the leaky bucket; empty when they never can be (the cost exceeds the capacity). Counts nothing;
     * another caller may take the permits first.
     */
    public Optional<Duration> timeToNextPermit(String key, long cost) {
        Decision decision = store.execute(key, Command.peek(policy(), requirePositive(cost)));
        if (!decision.canSucceed()) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(decision.allowed() ? decision.delayNanos() : decision.retryAfterNanos()));
    }

    /**
     * Takes {@code cost} permits for {@code key}, waiting for them at most {@code maxWait}, and returns once they are
     * taken (and, under the leaky bucket, once the slot has come).
     *
     * <p>Fails at once, without waiting, when the permits cannot be had within {@code maxWait} (the wait the policy
     * reports is longer) or ever (the cost exceeds the capacity). Waiting is not a reservation: other callers may take
     * the permits meanwhile, and then this one waits again while its budget lasts. Under the leaky bucket the wait is
     * the caller's slot in the queue: it fails at once when no slot within {@code maxWait} is free.
     *
     * @throws RateLimitExceededException if the permits cannot be taken within {@code maxWait}
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public Decision acquire(String key, long cost, Duration maxWait) throws InterruptedException {
        requirePositive(cost);
        Policy rates = policy();
        long deadline = Durations.saturatedAdd(time.nanos(), maxWait.toNanos());
        while (true) {
            long budget = Math.max(0, deadline - time.nanos());
            Decision decision = decide(key, rates, cost, budget);
            if (decision.allowed()) {
                if (decision.delayNanos() > 0) {
                    time.sleep(decision.delayNanos());
                }
                return decision;
            }
            // A queueing algorithm was already offered the whole budget as its maximum delay: waiting cannot help.
            if (decision.retryAfterNanos() > budget || rates.algorithm().queues()) {
                throw new RateLimitExceededException(decision, cost, maxWait);
            }
            time.sleep(decision.retryAfterNanos());
        }
    }

    private static long requirePositive(long cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1, got " + cost);
        }
        return cost;
    }

    /** Builds a {@link RateLimiter}; not thread-safe. */
    public static final class Builder {
        private @Nullable Policy policy;
        private @Nullable ConcurrencyLimit concurrency;
        private @Nullable CounterStore store;
        private TimeSource time = TimeSource.system();
        private String id = DEFAULT_ID;

        private Builder() {
        }

        /**
         * The id overrides name this limiter by (as they name a rule), shared by the limiters that count the same keys
         * in one store; default {@link #DEFAULT_ID}.
         */
        public Builder id(String newId) {
            if (newId.isBlank() || newId.contains("|")) {
                throw new IllegalArgumentException("id must not be blank nor contain '|', got '" + newId + "'");
            }
            this.id = newId;
            return this;
        }

        /** The rate policy to enforce; required unless a {@linkplain #concurrency concurrency limit} is given. */
        public Builder policy(Policy newPolicy) {
            this.policy = Objects.requireNonNull(newPolicy, "policy");
            return this;
        }

        /** Shorthand for {@code policy(Policy.of(algorithm, limits))}. */
        public Builder policy(Algorithm algorithm, Limit... limits) {
            return policy(Policy.of(algorithm, limits));
        }

        /** The concurrency limit of {@link RateLimiter#tryAcquirePermit}; none by default. */
        public Builder concurrency(ConcurrencyLimit limit) {
            this.concurrency = Objects.requireNonNull(limit, "concurrency");
            return this;
        }

        /** Where counters live; defaults to a new {@link LocalCounterStore} on this builder's time source. */
        public Builder store(CounterStore newStore) {
            this.store = Objects.requireNonNull(newStore, "store");
            return this;
        }

        /**
         * The time used to wait in {@link #acquire}, and by the default local store; defaults to
         * {@link TimeSource#system()}. A store given explicitly keeps its own time.
         */
        public Builder timeSource(TimeSource newTime) {
            this.time = Objects.requireNonNull(newTime, "timeSource");
            return this;
        }

        public RateLimiter build() {
            if (policy == null && concurrency == null) {
                throw new IllegalStateException("a policy or a concurrency limit is required");
            }
            CounterStore chosen = store != null ? store
                    : new LocalCounterStore(time, LocalCounterStore.DEFAULT_MAX_KEYS);
            return new RateLimiter(id, policy, concurrency, chosen, time);
        }
    }
}
