package dev.sluice.limiter;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Durations;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Limits the rate at which each key may take permits, under one {@link Policy}, counting in one
 * {@link CounterStore}.
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
 * given time. Thread-safe.
 */
public final class RateLimiter {

    private final Policy policy;
    private final CounterStore store;
    private final TimeSource time;

    private RateLimiter(Policy policy, CounterStore store, TimeSource time) {
        this.policy = policy;
        this.store = store;
        this.time = time;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Policy policy() {
        return policy;
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
        return store.apply(key, policy, requirePositive(cost), Long.MAX_VALUE);
    }

    /** The key's state now (remaining permits, reset time), without counting anything. */
    public Decision peek(String key) {
        return store.peek(key, policy, 0);
    }

    /**
     * How long until {@code cost} permits would be granted to {@code key}: zero when they would be now, the queue
     * delay under the leaky bucket; empty when they never can be (the cost exceeds the capacity). Counts nothing;
     * another caller may take the permits first.
     */
    public Optional<Duration> timeToNextPermit(String key, long cost) {
        Decision decision = store.peek(key, policy, requirePositive(cost));
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
        long deadline = Durations.saturatedAdd(time.nanos(), maxWait.toNanos());
        while (true) {
            long budget = Math.max(0, deadline - time.nanos());
            Decision decision = store.apply(key, policy, cost, budget);
            if (decision.allowed()) {
                if (decision.delayNanos() > 0) {
                    time.sleep(decision.delayNanos());
                }
                return decision;
            }
            // A queueing algorithm was already offered the whole budget as its maximum delay: waiting cannot help.
            if (decision.retryAfterNanos() > budget || policy.algorithm().queues()) {
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
        private @Nullable CounterStore store;
        private TimeSource time = TimeSource.system();

        private Builder() {
        }

        /** The policy to enforce; required. */
        public Builder policy(Policy newPolicy) {
            this.policy = Objects.requireNonNull(newPolicy, "policy");
            return this;
        }

        /** Shorthand for {@code policy(Policy.of(algorithm, limits))}. */
        public Builder policy(Algorithm algorithm, Limit... limits) {
            return policy(Policy.of(algorithm, limits));
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
            if (policy == null) {
                throw new IllegalStateException("a policy is required");
            }
            CounterStore chosen = store != null ? store
                    : new LocalCounterStore(time, LocalCounterStore.DEFAULT_MAX_KEYS);
            return new RateLimiter(policy, chosen, time);
        }
    }
}
