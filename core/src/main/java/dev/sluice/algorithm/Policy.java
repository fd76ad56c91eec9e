package dev.sluice.algorithm;

import dev.sluice.Limit;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a counter enforces: one algorithm and one or more limits that must all pass, such as 10 per second and
 * 1,000 per day.
 *
 * <p>A request is granted only when every limit grants it, and then it is counted against every limit; when any
 * limit rejects it, none is charged. A key's state belongs to one policy: use distinct keys for distinct policies.
 * A policy may ask to be {@linkplain #leasing() leased}: a store that leases (the Hazelcast store's opt-in) then
 * grants a hot key's permits from slices its node took from the key's owner. Immutable and thread-safe.
 */
public final class Policy {

    /** The most limits one policy holds; real policies have a handful, and the bound keeps wire reads bounded. */
    public static final int MAX_LIMITS = 64;

    private final Algorithm algorithm;
    private final List<Limit> limits;
    private final long capacity;
    private final boolean leased;
    /** Computed on first use and kept (as {@code String} does): a policy is a map key in cached rejections. */
    private int hash;

    private Policy(Algorithm algorithm, List<Limit> limits) {
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("a policy needs at least one limit");
        }
        if (limits.size() > MAX_LIMITS) {
            throw new IllegalArgumentException("a policy holds at most " + MAX_LIMITS + " limits, got "
                    + limits.size());
        }
        this.limits = List.copyOf(limits);
        long smallest = Long.MAX_VALUE;
        for (Limit limit : this.limits) {
            algorithm.validate(limit);
            smallest = Math.min(smallest, limit.capacity());
        }
        this.capacity = smallest;
        this.leased = false;
    }

    private Policy(Policy policy, boolean leased) {
        this.algorithm = policy.algorithm;
        this.limits = policy.limits;
        this.capacity = policy.capacity;
        this.leased = leased;
    }

    /** A policy of {@code algorithm} over {@code limits}; throws {@link IllegalArgumentException} when the algorithm
     *  cannot enforce one of them, naming the limit and the reason. */
    public static Policy of(Algorithm algorithm, Limit... limits) {
        return new Policy(algorithm, List.of(limits));
    }

    /** Like {@link #of(Algorithm, Limit...)}, with the limits in a list. */
    public static Policy of(Algorithm algorithm, List<Limit> limits) {
        return new Policy(algorithm, limits);
    }

    public Algorithm algorithm() {
        return algorithm;
    }

    /** The limits, in the order given. */
    public List<Limit> limits() {
        return limits;
    }

    /**
     * This policy, asking stores that lease to grant a hot key's permits from slices (see {@link Lease} for the
     * bounds); stores that do not lease decide it as any other.
     *
     * @throws IllegalArgumentException when the algorithm cannot lease ({@link Algorithm#leases()}), saying why
     */
    public Policy leasing() {
        algorithm.requireLeases();
        return leased ? this : new Policy(this, true);
    }

    /** Whether this policy asks to be leased ({@link #leasing()}). */
    public boolean leased() {
        return leased;
    }

    /** The largest cost that can ever be granted: the smallest capacity among the limits. */
    public long capacity() {
        return capacity;
    }

    /**
     * Runs the algorithm: a pure function of its arguments, the one step every store performs atomically per key.
     *
     * @param state the key's state, or {@code null} for a key with none; never modified
     * @param nowNanos the store's current time
     * @param cost permits asked for; 0 evaluates the state without consuming
     * @param maxDelayNanos for queueing algorithms, the longest delay the caller accepts for its slot
     */
    public Transition apply(long @Nullable [][] state, long nowNanos, long cost, long maxDelayNanos) {
        return algorithm.apply(state, nowNanos, cost, maxDelayNanos, limits);
    }

    /**
     * Counts a request made {@code ageNanos} before now, whether or not it fits; see {@link Algorithm#record}.
     *
     * @throws IllegalArgumentException when the algorithm cannot count past requests
     */
    public Transition record(long @Nullable [][] state, long nowNanos, long cost, long ageNanos) {
        return algorithm.record(state, nowNanos, cost, ageNanos, limits);
    }

    /** Takes the earliest slot within {@code maxWaitNanos} at which {@code cost} fits; see {@link Algorithm#reserve}. */
    public Transition reserve(long @Nullable [][] state, long nowNanos, long cost, long maxWaitNanos) {
        return algorithm.reserve(state, nowNanos, cost, maxWaitNanos, limits);
    }

    /** Counts a slice for a node, or decides the request alone; see {@link Algorithm#lease}. */
    public Lease lease(long @Nullable [][] state, long nowNanos, long cost, long wanted, long lifetimeNanos,
                       long clockErrorNanos) {
        return algorithm.lease(state, nowNanos, cost, wanted, lifetimeNanos, clockErrorNanos, limits);
    }

    /** Takes back a slice's unused permits where they are still counted; see {@link Algorithm#giveBack}. */
    public Transition giveBack(long @Nullable [][] state, long nowNanos, long permits, long countedAtNanos) {
        return algorithm.giveBack(state, nowNanos, permits, countedAtNanos, limits);
    }

    /** Takes back a request granted at {@code countedAtNanos}; see {@link Algorithm#undo}. */
    public Transition undo(long @Nullable [][] state, long nowNanos, long cost, long countedAtNanos) {
        return algorithm.undo(state, nowNanos, cost, countedAtNanos, limits);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o == this || o instanceof Policy other && algorithm == other.algorithm && leased == other.leased
                && limits.equals(other.limits);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = 31 * (31 * algorithm.hashCode() + limits.hashCode()) + (leased ? 1 : 0);
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        return "Policy[" + algorithm + " " + limits + (leased ? " leased" : "") + "]";
    }
}
