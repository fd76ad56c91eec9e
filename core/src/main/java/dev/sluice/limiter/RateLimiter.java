package dev.sluice.limiter;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Durations;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.PermitQueue;
import java.time.Duration;
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
 * first served. Thread-safe.
 */
public final class RateLimiter {

    /**
     * What a key's permit key adds, so that its permits and its rate counter are distinct keys of the store: a key's
     * state belongs to one policy or limit.
     */
    private static final String PERMIT_KEY_SUFFIX = "|permits";

    /** Null for a limiter of a concurrency limit alone. */
    private final @Nullable Policy policy;
    /** Null for a limiter without a concurrency limit. */
    private final @Nullable ConcurrencyLimit concurrency;
    private final CounterStore store;
    private final TimeSource time;
    /** Where {@link #acquirePermitAsync} waits; it schedules nothing while no one waits. */
    private final PermitQueue waiters;

    private RateLimiter(@Nullable Policy policy, @Nullable ConcurrencyLimit concurrency, CounterStore store,
                        TimeSource time) {
        this.policy = policy;
        this.concurrency = concurrency;
        this.store = store;
        this.time = time;
        this.waiters = new PermitQueue(time, WaitScheduler.SHARED, PermitQueue.DEFAULT_RETRY);
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
        Counted rate = null;
        if (policy != null) {
            rate = store.countAsync(key, policy, 1, Long.MAX_VALUE).toCompletableFuture().join();
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
        return store.apply(key, policy(), requirePositive(cost), Long.MAX_VALUE);
    }

    /** The key's state now (remaining permits, reset time), without counting anything. */
    public Decision peek(String key) {
        return store.peek(key, policy(), 0);
    }

    /**
     * How long until {@code cost} permits would be granted to {@code key}: zero when they would be now, the queue
     * delay under the leaky bucket; empty when they never can be (the cost exceeds the capacity). Counts nothing;
     * another caller may take the permits first.
     */
    public Optional<Duration> timeToNextPermit(String key, long cost) {
        Decision decision = store.peek(key, policy(), requirePositive(cost));
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
            Decision decision = store.apply(key, rates, cost, budget);
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

        private Builder() {
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
            return new RateLimiter(policy, concurrency, chosen, time);
        }
    }
}
