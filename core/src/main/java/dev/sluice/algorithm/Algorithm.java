package dev.sluice.algorithm;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.internal.state.Lease;
import dev.sluice.internal.state.Transition;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The rate-limiting algorithms Sluice implements, each a pure state transition
 * {@code (state, now, cost, limit) -> (state', decision)}: no clock reads, no I/O, no locks, so the same code runs in
 * the local store and in a Hazelcast entry processor. A policy's limits are decided together and committed all or
 * none. Time is in nanoseconds on the store's timeline; a clock that jumps back never grants extra permits.
 *
 * <p>Token bucket, GCRA and the leaky bucket (GCRA read as a queue, nginx {@code limit_req}) keep a level or a time;
 * the fixed window, the sliding window log (exact), the sliding window counter (weighted estimate) and the stepped
 * sliding window (exact per step) keep what was taken in which window. Each has a fixed {@linkplain #id() id} that
 * stores leaving the process write, never the ordinal. Immutable and thread-safe. Design, with each algorithm's
 * state and exact arithmetic: {@code docs/design/algorithms.md}.
 */
public enum Algorithm {
    /** Integral tokens refilled continuously at N/P up to the capacity, the fraction carried: no rounding drift. */
    TOKEN_BUCKET(1, new TokenBucket()),
    /** A queue drained every P/N: a grant carries the delay of its slot (nginx {@code limit_req} burst and delay). */
    LEAKY_BUCKET(2, new Gcra(true)),
    /** A counter per aligned window; up to 2N can pass around a window boundary. */
    FIXED_WINDOW(3, new FixedWindow()),
    /** Exact: the time of each grant is kept, never more than N in any window of length P. */
    SLIDING_WINDOW_LOG(4, new WindowLog(false)),
    /** The previous window's count weighted by its overlap with the sliding window, plus the current one's. */
    SLIDING_WINDOW_COUNTER(5, new SlidingWindowCounter()),
    /** Counters per step of the window (10 ms for windows up to 10 s ... 1 h beyond 1 day); exact per step. */
    STEPPED_SLIDING_WINDOW(6, new WindowLog(true)),
    /** One timestamp, the theoretical arrival time; results match redis-cell's {@code CL.THROTTLE}. */
    GCRA(7, new Gcra(false));

    private static final Algorithm[] ALL = values();

    private final int id;
    private final Strategy strategy;

    Algorithm(int id, Strategy strategy) {
        this.id = id;
        this.strategy = strategy;
    }

    /**
     * This algorithm's fixed id, 1 or more: stable across releases whatever the order of declaration, never reused
     * for another algorithm. Stores that write an algorithm outside the process write this, never the ordinal.
     */
    public int id() {
        return id;
    }

    /** The algorithm with this {@linkplain #id() id}; empty when there is none (written by a newer release). */
    public static Optional<Algorithm> byId(int id) {
        for (Algorithm algorithm : ALL) {
            if (algorithm.id == id) {
                return Optional.of(algorithm);
            }
        }
        return Optional.empty();
    }

    /**
     * Whether grants carry a {@linkplain Decision#delay() delay}: the caller waits for its slot in a queue. Only
     * the leaky bucket queues; its rejection means the queue has no slot within the caller's maximum delay.
     */
    public boolean queues() {
        return this == LEAKY_BUCKET;
    }

    /**
     * Whether {@link #record} counts a past request in the window it was made in, whatever was counted after it: the
     * window algorithms, which keep what was taken in which window ({@link #FIXED_WINDOW}, {@link #SLIDING_WINDOW_LOG},
     * {@link #SLIDING_WINDOW_COUNTER}, {@link #STEPPED_SLIDING_WINDOW}). The buckets and GCRA keep only a level or a
     * time: they count it at its instant while their state is no later, else at their state's time, as a debt, which
     * is never more permissive; and a window slice's permits given back find them where they were.
     */
    public boolean countsPastRequests() {
        return this == FIXED_WINDOW || this == SLIDING_WINDOW_LOG || this == SLIDING_WINDOW_COUNTER
                || this == STEPPED_SLIDING_WINDOW;
    }

    /**
     * Whether {@link #reserve} can take a slot ahead of now, when the cost first fits: the sliding window log and the
     * stepped sliding window, whose permits only leave as time passes. The leaky bucket queues by its own nature
     * ({@link #queues()}); the other algorithms grant only what fits now.
     */
    public boolean reservesFutureSlots() {
        return this == SLIDING_WINDOW_LOG || this == STEPPED_SLIDING_WINDOW;
    }

    /**
     * Whether a node may take a slice of a key's permits from its owner and grant from it locally
     * ({@link #lease}): every algorithm but the {@link #SLIDING_WINDOW_LOG}, which records the instant of each grant,
     * and the {@link #LEAKY_BUCKET}, which gives each request its own slot in the queue.
     */
    public boolean leases() {
        return this != SLIDING_WINDOW_LOG && this != LEAKY_BUCKET;
    }

    /** Throws {@link IllegalArgumentException}, saying why, unless this algorithm {@linkplain #leases() leases}. */
    void requireLeases() {
        if (!leases()) {
            throw new IllegalArgumentException(this == SLIDING_WINDOW_LOG
                    ? "the sliding window log cannot lease (it records the instant of each grant; the stepped sliding"
                            + " window can)"
                    : "the leaky bucket cannot lease (it gives each request its own slot in the queue; GCRA can)");
        }
    }

    /** Throws {@link IllegalArgumentException}, naming the limit, when this algorithm cannot enforce it. */
    public void validate(Limit limit) {
        strategy.validate(limit);
    }

    /**
     * Reconciles two copies of one key's state that were updated independently (the two sides of a healed split
     * brain): the result, limit by limit, is at least as restrictive as either copy, so no request is granted that
     * either side would have rejected. Pure; neither argument is modified. {@code null}, or a state of another shape
     * (another policy), stands for a fresh key.
     */
    public long @Nullable [][] merge(long @Nullable [][] a, long @Nullable [][] b) {
        if (a == null || b == null || a.length != b.length) {
            return a == null ? b : a;
        }
        long[][] merged = new long[a.length][];
        for (int i = 0; i < a.length; i++) {
            merged[i] = strategy.merge(a[i], b[i]);
        }
        return merged;
    }

    /**
     * Decides one request against every limit and commits the result to all of them or to none.
     *
     * @param state the key's state ({@code null} for none); never modified
     * @param now the current time in nanoseconds
     * @param cost permits asked for; 0 only evaluates
     * @param maxDelay the longest delay (nanoseconds) the caller accepts for a queued slot
     * @param limits the policy's limits, each already {@linkplain #validate validated}
     */
    Transition apply(long @Nullable [][] state, long now, long cost, long maxDelay, List<Limit> limits) {
        if (cost < 0) {
            throw new IllegalArgumentException("cost must not be negative, got " + cost);
        }
        return decided(state, state, now, cost, maxDelay, limits);
    }

    /**
     * {@link #apply} on {@code after}, as a transition from {@code before}: {@code after} is {@code before} itself, or
     * what a settle or an undo made of it, which a look of cost 0 then answers for. A cost of 0 only evaluates: it
     * keeps {@code after} as it is.
     */
    private Transition decided(long @Nullable [][] before, long @Nullable [][] after, long now, long cost,
                               long maxDelay, List<Limit> limits) {
        int count = limits.size();
        long @Nullable [][] current = after != null && after.length == count ? after : null;
        long[][] next = new long[count][];
        @Nullable Decision verdict = null;
        long idleAfter = 0;
        boolean changed = false;
        for (int i = 0; i < count; i++) {
            long @Nullable [] limitState = current == null ? null : current[i];
            Decision decision = strategy.decide(limitState, now, cost, Math.max(0, maxDelay), limits.get(i), next, i);
            verdict = verdict == null ? decision : Decision.mostRestrictive(verdict, decision);
            idleAfter = Math.max(idleAfter, decision.resetAfterNanos());
            changed |= next[i] != limitState;
        }
        Decision decided = Objects.requireNonNull(verdict, "a policy has at least one limit");
        if (!decided.allowed() || !changed || cost == 0) {
            return new Transition(after, decided, after != before, idleAfter);
        }
        return new Transition(next, decided, true, idleAfter);
    }

    /** {@link Policy#room} over {@code limits}. */
    long[] room(long @Nullable [][] state, long now, List<Limit> limits) {
        long @Nullable [][] current = state != null && state.length == limits.size() ? state : null;
        long[] room = new long[limits.size()];
        for (int i = 0; i < room.length; i++) {
            room[i] = strategy.room(current == null ? null : current[i], now, limits.get(i));
        }
        return room;
    }

    /** {@link Policy#record} over {@code limits}. */
    Transition record(long @Nullable [][] state, long now, long cost, long ageNanos, List<Limit> limits) {
        checkRecord(cost, ageNanos);
        return counted(state, now, now - ageNanos, cost, limits, -1);
    }

    /**
     * Throws what {@link #record} throws for these arguments, without counting anything: stores call it before they
     * send a record elsewhere, so that a caller's mistake is not taken for the store's failure.
     *
     * @throws IllegalArgumentException when {@code cost} is below 1 or {@code ageNanos} is negative
     */
    public void checkRecord(long cost, long ageNanos) {
        if (cost < 1 || ageNanos < 0) {
            throw new IllegalArgumentException("a recorded request needs a cost of at least 1 and an age of 0 or more,"
                    + " got cost " + cost + " and age " + ageNanos + " ns");
        }
    }

    /** {@link Policy#reserve} over {@code limits}. */
    Transition reserve(long @Nullable [][] state, long now, long cost, long maxWaitNanos, List<Limit> limits) {
        if (!reservesFutureSlots()) {
            return apply(state, now, cost, queues() ? maxWaitNanos : 0, limits);
        }
        if (cost < 0) {
            throw new IllegalArgumentException("cost must not be negative, got " + cost);
        }
        int count = limits.size();
        long @Nullable [][] current = state != null && state.length == count ? state : null;
        WindowLog log = (WindowLog) strategy;
        long wait = 0;
        for (int i = 0; i < count; i++) {
            wait = Math.max(wait, log.waitFor(current == null ? null : current[i], now, cost, limits.get(i)));
        }
        if (wait == Decision.NEVER || wait > Math.max(0, maxWaitNanos) || cost == 0) {
            // Rejected (the longest wait is the verdict's retry-after), or only evaluated: counts nothing.
            return apply(state, now, cost, 0, limits);
        }
        return counted(state, now, now + wait, cost, limits, wait);
    }

    /** {@link Policy#lease} over {@code limits}. */
    Lease lease(long @Nullable [][] state, long now, long cost, long wanted, long lifetimeNanos,
                       long clockErrorNanos, List<Limit> limits) {
        requireLeases();
        if (cost < 0) {
            throw new IllegalArgumentException("cost must not be negative, got " + cost);
        }
        long validFor = Long.MAX_VALUE;
        for (Limit limit : limits) {
            validFor = Math.min(validFor, strategy.sliceValidity(now, limit, lifetimeNanos));
        }
        validFor -= clockErrorNanos;
        if (validFor > 0 && wanted > cost) {
            long left = apply(state, now, 0, 0, limits).decision().remaining();
            // What the node would use before the slice ends, at the rate it asked by: nothing counted to be lost.
            long usable = validFor >= lifetimeNanos ? wanted
                    : Math.max(cost + 1, Arithmetic.mulDivFloor(wanted, validFor, lifetimeNanos));
            long permits = Math.min(usable, left / Lease.SLICE_SHARE);
            if (permits > cost) {
                Transition slice = apply(state, now, permits, 0, limits);
                if (slice.decision().allowed()) {
                    return new Lease(slice, permits, validFor);
                }
            }
        }
        Transition alone = apply(state, now, cost, 0, limits);
        return new Lease(cost == 0 ? new Transition(state, alone.decision(), false, alone.idleAfterNanos()) : alone,
                0, 0);
    }

    /** {@link Policy#giveBack} over {@code limits}. */
    Transition giveBack(long @Nullable [][] state, long now, long permits, long countedAt, List<Limit> limits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits given back must be at least 1, got " + permits);
        }
        int count = limits.size();
        boolean there = state != null && state.length == count && now >= countedAt;
        // With no lifetime, a slice is valid only where it was counted in a window or step: never for the buckets.
        for (int i = 0; there && i < count; i++) {
            there = now - countedAt < strategy.sliceValidity(countedAt, limits.get(i), 0);
        }
        if (!there || state == null) {
            return apply(state, now, 0, 0, limits);
        }
        long[][] next = new long[count][];
        boolean changed = false;
        for (int i = 0; i < count; i++) {
            next[i] = strategy.takeBack(state[i], countedAt, permits, limits.get(i));
            changed |= next[i] != state[i];
        }
        return decided(state, changed ? next : state, now, 0, 0, limits);
    }

    /**
     * Takes back a request of {@code cost} that {@link #apply} granted at {@code countedAt}, because another rule
     * rejected it: every limit's state as if the request had never been counted, or, where the state cannot tell
     * (the token bucket refilled by a later request, GCRA and the leaky bucket some time after the count), one that
     * still holds part of it; never one more permissive. Unlike {@link #giveBack}, which must not return a slice's
     * permits to a bucket that may have been full in the slice's lifetime, this runs right after the count, and the
     * note {@code docs/design/all-or-nothing.md} proves each algorithm's case. The decision is a bare look at the
     * state ({@code apply} of cost 0, accepting any delay).
     *
     * @param countedAt the store's time at which {@code apply} granted the request
     * @throws IllegalArgumentException when {@code cost} is below 1
     */
    Transition undo(long @Nullable [][] state, long now, long cost, long countedAt, List<Limit> limits) {
        if (cost < 1) {
            throw new IllegalArgumentException("a request given back costs at least 1, got " + cost);
        }
        return undoPart(state, now, cost, 0, countedAt, limits);
    }

    /**
     * Settles a request counted at {@code countedAt} with its estimate {@code reserved} ({@link #apply}) at its
     * {@code actual} cost: the excess {@linkplain #record recorded} now, a debt whatever is left; the difference below
     * the estimate taken back as {@link #undo} takes a request back, the request keeping {@code actual}, with the
     * bound {@code docs/design/costs.md} proves (never more permissive than a request counted at its actual cost).
     * The decision is a bare look at the state after it ({@code apply} of cost 0, accepting any delay).
     *
     * @throws IllegalArgumentException when {@code reserved} is below 1 or {@code actual} negative
     */
    Transition settle(long @Nullable [][] state, long now, long reserved, long actual, long countedAt,
                      List<Limit> limits) {
        if (reserved < 1 || actual < 0) {
            throw new IllegalArgumentException("a settle needs an estimate of at least 1 and an actual cost of 0 or"
                    + " more, got estimate " + reserved + " and actual cost " + actual);
        }
        if (actual > reserved) {
            return decided(state, recorded(state, now, now, actual - reserved, limits), now, 0, Long.MAX_VALUE, limits);
        }
        if (actual < reserved) {
            return undoPart(state, now, reserved - actual, actual, countedAt, limits);
        }
        return apply(state, now, 0, Long.MAX_VALUE, limits);
    }

    /** {@link #undo} of {@code cost} of a request that keeps {@code kept} more. */
    private Transition undoPart(long @Nullable [][] state, long now, long cost, long kept, long countedAt,
                                List<Limit> limits) {
        int count = limits.size();
        long @Nullable [][] after = state;
        if (state != null && state.length == count) {
            long[][] next = new long[count][];
            boolean changed = false;
            for (int i = 0; i < count; i++) {
                next[i] = strategy.undo(state[i], now, countedAt, cost, kept, limits.get(i));
                changed |= next[i] != state[i];
            }
            after = changed ? next : state;
        }
        return decided(state, after, now, 0, Long.MAX_VALUE, limits);
    }

    /**
     * Counts {@code cost} at time {@code at} against every limit. With {@code delayNanos} of 0 or more (a reserved
     * slot's wait), the decision is the reservation's: allowed after that delay, with the permits remaining now; with
     * -1 (a recorded request), it is what a one-permit request would get right after.
     */
    private Transition counted(long @Nullable [][] state, long now, long at, long cost, List<Limit> limits,
                               long delayNanos) {
        long @Nullable [][] next = recorded(state, now, at, cost, limits);
        boolean changed = next != state;
        long idleAfter = apply(next, now, 0, 0, limits).idleAfterNanos();
        Decision after = apply(next, now, delayNanos >= 0 ? 0 : 1, 0, limits).decision();
        if (delayNanos >= 0) {
            after = Decision.granted(after.limit(), after.limitName()).remaining(after.remaining())
                    .nextPermitIn(after.nextPermitNanos()).resetIn(after.resetAfterNanos()).delay(delayNanos).build();
        }
        return new Transition(next, after, changed, idleAfter);
    }

    /** The state with {@code cost} counted at {@code at} against every limit; {@code state} itself if unchanged. */
    private long @Nullable [][] recorded(long @Nullable [][] state, long now, long at, long cost, List<Limit> limits) {
        int count = limits.size();
        long @Nullable [][] current = state != null && state.length == count ? state : null;
        long[][] next = new long[count][];
        boolean changed = false;
        for (int i = 0; i < count; i++) {
            long @Nullable [] limitState = current == null ? null : current[i];
            next[i] = strategy.record(limitState, now, at, cost, limits.get(i));
            changed |= next[i] != limitState;
        }
        return changed ? next : state;
    }
}
