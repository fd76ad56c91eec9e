package dev.sluice.algorithm;

import dev.sluice.Limit;
import dev.sluice.Quota;
import dev.sluice.internal.state.Lease;
import dev.sluice.internal.state.Transition;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What a counter enforces: one algorithm and one or more limits that must all pass, such as 10 per second and
 * 1,000 per day.
 *
 * <p>A request is granted only when every limit grants it, and then it is counted against every limit; when any
 * limit rejects it, none is charged. A key's state belongs to one policy: use distinct keys for distinct policies.
 * A policy may ask to be {@linkplain #leasing() leased}: a store that leases (the Hazelcast store's opt-in) then
 * grants a hot key's permits from slices its node took from the key's owner; or to be {@linkplain #synchronised()
 * synchronised}, never both. Immutable and thread-safe.
 *
 * <p>A policy counts requests, or a unit such as tokens ({@link #inUnit}), which a request reserves as an estimate
 * when it starts and settles at its actual cost when it ends ({@link #settle}).
 *
 * <p>The state methods ({@link #apply}, {@link #record}, {@link #reserve}, {@link #lease}, {@link #giveBack}) are for
 * stores, which run them atomically per key; they return types of {@code dev.sluice.internal.state}, which carry no
 * compatibility promise. Applications decide through a {@code CounterStore} or a {@code RateLimiter}.
 */
public final class Policy implements Quota {

    /** The most limits one policy holds; real policies have a handful, and the bound keeps wire reads bounded. */
    public static final int MAX_LIMITS = 64;

    /** The unit of a policy that counts requests: every policy's unless {@link #inUnit} says otherwise. */
    public static final String REQUESTS = "requests";

    /** A unit's name: a letter, then letters, digits, {@code -} or {@code _}, 40 characters at most. */
    private static final Pattern UNIT = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,39}");

    private final Algorithm algorithm;
    private final List<Limit> limits;
    private final long capacity;
    private final boolean leased;
    private final boolean synced;
    /** The synchronised mode's budget per node and key; empty for the store's ({@link #syncBudget()}). */
    private final OptionalLong syncBudget;
    private final String unit;
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
        this.synced = false;
        this.syncBudget = OptionalLong.empty();
        this.unit = REQUESTS;
    }

    private Policy(Policy policy, boolean leased, boolean synced, OptionalLong syncBudget, String unit) {
        this.algorithm = policy.algorithm;
        this.limits = policy.limits;
        this.capacity = policy.capacity;
        this.leased = leased;
        this.synced = synced;
        this.syncBudget = syncBudget;
        this.unit = unit;
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
     * @throws IllegalArgumentException when the algorithm cannot lease ({@link Algorithm#leases()}), or the policy is
     *     {@linkplain #synced() synchronised}, saying why
     */
    public Policy leasing() {
        algorithm.requireLeases();
        if (synced) {
            throw new IllegalArgumentException("a synchronised policy cannot also be leased: choose one");
        }
        return leased ? this : new Policy(this, true, false, OptionalLong.empty(), unit);
    }

    /**
     * A policy of this one's algorithm over {@code newLimits}, leased or synchronised as this one is: what an override
     * of a rule's limits counts under.
     *
     * @throws IllegalArgumentException when the algorithm cannot enforce one of them, naming the limit and the reason
     */
    public Policy withLimits(List<Limit> newLimits) {
        Policy other = new Policy(algorithm, newLimits).inUnit(unit);
        return leased ? other.leasing() : synced ? new Policy(other, false, true, syncBudget, unit) : other;
    }

    /**
     * This policy counting {@code newUnit} instead of requests, such as {@code tokens} or {@code bytes}: a request
     * counts its estimate in that unit when it starts and settles its actual cost when it ends ({@link #settle};
     * {@code docs/design/costs.md}). {@link #REQUESTS} is every policy's unit unless set. The unit names what the
     * limits count in headers and metrics; the arithmetic is the same.
     *
     * @throws IllegalArgumentException when {@code newUnit} is no unit name (a letter, then letters, digits, {@code -}
     *     or {@code _}, at most 40), is {@code concurrent-requests} (a concurrency limit's), or the algorithm is the
     *     leaky bucket, which cannot settle (it gives each request a slot of its estimated length in its queue, and the
     *     requests behind it are released at theirs: the unused part of a slot cannot be given back)
     */
    public Policy inUnit(String newUnit) {
        if (!UNIT.matcher(newUnit).matches() || newUnit.equals("concurrent-requests")) {
            throw new IllegalArgumentException("a unit is a letter, then letters, digits, '-' or '_' (40 at most), and"
                    + " not concurrent-requests; got \"" + newUnit + "\"");
        }
        if (newUnit.equals(unit)) {
            return this;
        }
        if (algorithm == Algorithm.LEAKY_BUCKET && !newUnit.equals(REQUESTS)) {
            throw new IllegalArgumentException("the leaky bucket cannot count " + newUnit + " settled when a request"
                    + " ends (it gives each request a slot of its estimated length in the queue and releases the"
                    + " requests behind it at theirs, so the unused part of a slot cannot be given back; GCRA can)");
        }
        return new Policy(this, leased, synced, syncBudget, newUnit);
    }

    /** What the limits count: {@link #REQUESTS}, or the unit {@link #inUnit} set, such as {@code tokens}. */
    public String unit() {
        return unit;
    }

    /** Whether this policy counts a unit other than requests, settled when a request ends ({@link #inUnit}). */
    public boolean metered() {
        return !unit.equals(REQUESTS);
    }

    /** Whether this policy asks to be leased ({@link #leasing()}). */
    public boolean leased() {
        return leased;
    }

    /**
     * This policy, asking stores that synchronise (the Hazelcast store) to decide its keys on each node first, from the
     * node's view of the key, admitting at most a budget of permits the key's owner has not yet counted, and to send
     * the hits admitted to the owner, which merges them as debts ({@link #record}); the over-admission is bounded by
     * the budget ({@code docs/design/synchronised.md}). The budget is the store's; see {@link #synchronised(long)}.
     * Stores with one node decide it as any other. Every algorithm can be synchronised.
     *
     * @throws IllegalArgumentException when the policy is {@linkplain #leased() leased}
     */
    public Policy synchronised() {
        return synchronised(OptionalLong.empty());
    }

    /**
     * {@link #synchronised()} with a budget of its own: at most {@code budget} permits of a key admitted on one node
     * and not yet counted by the key's owner (0: every decision on the owner). Over-admission is at most
     * {@code (nodes - 1) * budget} per window.
     *
     * @throws IllegalArgumentException when {@code budget} is negative, or the policy is {@linkplain #leased() leased}
     */
    public Policy synchronised(long budget) {
        if (budget < 0) {
            throw new IllegalArgumentException("a synchronised policy's budget is 0 or more permits, got " + budget);
        }
        return synchronised(OptionalLong.of(budget));
    }

    private Policy synchronised(OptionalLong budget) {
        if (leased) {
            throw new IllegalArgumentException("a leased policy cannot also be synchronised: choose one");
        }
        return synced && syncBudget.equals(budget) ? this : new Policy(this, false, true, budget, unit);
    }

    /** Whether this policy asks to be synchronised ({@link #synchronised()}). */
    public boolean synced() {
        return synced;
    }

    /**
     * The synchronised mode's budget, in permits per node and key, when this policy sets one
     * ({@link #synchronised(long)}); empty for the store's (and for a policy that is not synchronised).
     */
    public OptionalLong syncBudget() {
        return syncBudget;
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
    @SuppressWarnings("exports")  // for Sluice's stores: internal.state is exported to them
    public Transition apply(long @Nullable [][] state, long nowNanos, long cost, long maxDelayNanos) {
        return algorithm.apply(state, nowNanos, cost, maxDelayNanos, limits);
    }

    /**
     * Counts a request of {@code cost} made {@code ageNanos} before now against every limit, whether or not it fits:
     * the request was made (or cost more than it reserved), and the counters must say so. The window algorithms count
     * it in the window (or step) where it was made, and a limit whose window it has already left does not count it;
     * the buckets and GCRA count it at its instant (at their state's time when that is later), below zero if need be:
     * a <em>debt</em> that the refill (or passing time) pays back before the next grant. Either way nothing is
     * forgiven and nothing is counted more permissively than at the request's instant. Exact integer arithmetic;
     * counts beyond a limit's permits saturate ({@code docs/design/algorithms.md}).
     *
     * <p>The transition's decision is what a request of one permit would get right after (as a cost-1 {@link #apply}
     * that counts nothing): allowed when one more fits now, else when it will. Its {@link Transition#changed()} is
     * true whenever a limit counted the request.
     *
     * @param ageNanos how long before {@code nowNanos} the request was made, 0 or more
     * @throws IllegalArgumentException when {@code cost} is below 1 or {@code ageNanos} negative
     */
    @SuppressWarnings("exports")  // for Sluice's stores: internal.state is exported to them
    public Transition record(long @Nullable [][] state, long nowNanos, long cost, long ageNanos) {
        return algorithm.record(state, nowNanos, cost, ageNanos, limits);
    }

    /**
     * Per limit, in order, the permits left at {@code nowNanos}, below zero by as many as the state counts past the
     * limit ({@linkplain #record recorded} requests that did not fit): for a window algorithm its count less the
     * permits, for the token bucket its debt, for GCRA and the leaky bucket the whole intervals its theoretical arrival
     * time stands beyond the capacity. Where positive, what a cost-0 {@link #apply} reports as remaining.
     */
    public long[] room(long @Nullable [][] state, long nowNanos) {
        return algorithm.room(state, nowNanos, limits);
    }

    /**
     * Takes the earliest slot, within {@code maxWaitNanos} of now, at which {@code cost} fits every limit, and counts
     * the request there, atomically: the decision is allowed with {@link dev.sluice.Decision#delayNanos()} the wait
     * until that slot (0: now), or rejected, counting nothing, with the wait as its retry-after when it is longer than
     * the caller accepts. Two callers never get one slot: the second counts after the first's reservation.
     *
     * <p>Only algorithms that {@linkplain Algorithm#reservesFutureSlots() reserve future slots} wait for one here; the
     * leaky bucket queues as {@link #apply} does with {@code maxWaitNanos} as its maximum delay, and the other
     * algorithms grant only a request that fits now ({@code apply} with no delay).
     */
    @SuppressWarnings("exports")  // for Sluice's stores: internal.state is exported to them
    public Transition reserve(long @Nullable [][] state, long nowNanos, long cost, long maxWaitNanos) {
        return algorithm.reserve(state, nowNanos, cost, maxWaitNanos, limits);
    }

    /**
     * On the key's owner: counts a slice of permits for a node to grant locally, or, when the key has too few left for
     * one, decides the request alone as {@link #apply} does (no delay: leasing algorithms do not queue). Sizes, and
     * why a slice is never more permissive than the algorithm: {@code docs/design/leasing.md}.
     *
     * @param cost the asking request's permits, taken from the slice; 0 for a slice taken ahead of need (with no
     *     slice, then, nothing is counted)
     * @param wanted the slice the node asks for, its cost included: its traffic over one lifetime; granted up to
     *     this, scaled down to the slice's validity when that is shorter than a lifetime, and up to
     *     {@code 1/}{@value Lease#SLICE_SHARE} of the permits left, and only when that is more than the cost
     * @param lifetimeNanos how long a token bucket's or GCRA's slice stays valid, and the span {@code wanted} covers
     * @param clockErrorNanos how much later than {@code nowNanos} the true time may be (a clock of millisecond
     *     resolution: 1 ms); taken off the validity, so that a slice never outlives its window on the true timeline
     * @throws IllegalArgumentException when the algorithm does not lease
     */
    @SuppressWarnings("exports")  // for Sluice's stores: internal.state is exported to them
    public Lease lease(long @Nullable [][] state, long nowNanos, long cost, long wanted, long lifetimeNanos,
                       long clockErrorNanos) {
        return algorithm.lease(state, nowNanos, cost, wanted, lifetimeNanos, clockErrorNanos, limits);
    }

    /**
     * On the key's owner: takes back {@code permits} of a slice counted at {@code countedAtNanos} that its node will
     * not grant, when every limit still counts them where they were counted (the same window or step); otherwise, and
     * for the token bucket and GCRA (whose level cannot say whether those tokens would have been lost to a full
     * bucket), changes nothing. The decision is what a bare look at the state ({@code apply} of cost 0) gives.
     */
    @SuppressWarnings("exports")  // for Sluice's stores: internal.state is exported to them
    public Transition giveBack(long @Nullable [][] state, long nowNanos, long permits, long countedAtNanos) {
        return algorithm.giveBack(state, nowNanos, permits, countedAtNanos, limits);
    }

    /** Takes back a request granted at {@code countedAtNanos}; see {@link Algorithm#undo}. */
    public Transition undo(long @Nullable [][] state, long nowNanos, long cost, long countedAtNanos) {
        return algorithm.undo(state, nowNanos, cost, countedAtNanos, limits);
    }

    /**
     * Settles a request that {@link #apply} granted at {@code countedAtNanos} with its {@code estimate}, at its
     * {@code actual} cost: above the estimate, the excess is {@linkplain #record recorded} now, a debt whatever is
     * left, which the key pays back before its next grant; below it, the difference is taken back as {@link #undo}
     * takes a request back, the request keeping its actual cost, never more permissively than had the request been
     * counted at its actual cost from the start (the bound: {@code docs/design/costs.md}). The decision is a bare
     * look at the state after it.
     *
     * @throws IllegalArgumentException when {@code estimate} is below 1 or {@code actual} negative
     */
    @SuppressWarnings("exports")  // for Sluice's stores: internal.state is exported to them
    public Transition settle(long @Nullable [][] state, long nowNanos, long estimate, long actual,
                             long countedAtNanos) {
        return algorithm.settle(state, nowNanos, estimate, actual, countedAtNanos, limits);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o == this || o instanceof Policy other && algorithm == other.algorithm && leased == other.leased
                && synced == other.synced && syncBudget.equals(other.syncBudget) && limits.equals(other.limits)
                && unit.equals(other.unit);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = 31 * (31 * (31 * (31 * algorithm.hashCode() + limits.hashCode()) + syncBudget.hashCode())
                    + unit.hashCode()) + (leased ? 1 : 0)
                    + (synced ? 2 : 0);
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        return "Policy[" + algorithm + " " + limits + (metered() ? " in " + unit : "") + (leased ? " leased" : "")
                + (synced ? " synced" + (syncBudget.isPresent() ? " budget " + syncBudget.getAsLong() : "") : "") + "]";
    }
}
