package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.WriteStateProcessor;
import dev.sluice.internal.state.Transition;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CounterStore} in a Hazelcast {@link IMap} that needs nothing on the members: for a managed cluster, or
 * one you may not put the Sluice jar on. The caller computes each decision and writes it with a conditional replace
 * (a compare-and-set loop, exact from any number of callers); the members only store strings ({@code StateText}).
 * "Now" is {@link #clusterTime(HazelcastInstance)} (a client's is its own clock: keep clocks synchronized). A grant
 * costs up to four round trips plus a retry per conflicting writer, bounded by the retry timeout
 * ({@link #DEFAULT_RETRY_TIMEOUT} unless given), after which a decision throws a
 * {@link ConcurrentModificationException} for a {@link FailurePolicyStore} to decide. Prefer
 * {@link HazelcastCounterStore} where the members can have the Sluice jar.
 *
 * <p>{@link #executeAsync} blocks (completing on the calling thread). {@link #close()} leaves the instance running.
 * Thread-safe. Design, time, expiry and cost: {@code docs/design/compare-and-set.md}.
 */
@NullMarked
public final class CompareAndSetCounterStore implements CounterStore {

    /** How long one decision may retry after conflicting writes unless told otherwise: the failure policy's wait. */
    public static final Duration DEFAULT_RETRY_TIMEOUT = FailurePolicyStore.DEFAULT_TIMEOUT;

    private static final long NANOS_PER_MILLI = 1_000_000L;
    /** Hazelcast's time to live that never expires. */
    private static final long NO_EXPIRY = 0;

    private final HazelcastInstance instance;
    private final String mapName;
    private final long retryTimeoutNanos;
    private final TimeSource time;
    /** Got on first use: a client that has not yet connected cannot make the proxy. */
    private volatile @Nullable IMap<String, String> map;

    /** A store in map {@code mapName} of {@code instance} (a member or a client), deciding by cluster time. */
    public CompareAndSetCounterStore(HazelcastInstance instance, String mapName) {
        this(instance, mapName, DEFAULT_RETRY_TIMEOUT, clusterTime(instance));
    }

    /**
     * A store in map {@code mapName} of {@code instance} whose decisions retry for at most {@code retryTimeout} (of
     * real time) and read the time from {@code time}. Every caller of one map must share one timeline: a manual
     * source shared by all callers in tests, {@link #clusterTime} otherwise.
     */
    public CompareAndSetCounterStore(HazelcastInstance instance, String mapName, Duration retryTimeout,
            TimeSource time) {
        if (retryTimeout.isNegative()) {
            throw new IllegalArgumentException("retryTimeout must not be negative, got " + retryTimeout);
        }
        this.instance = Objects.requireNonNull(instance, "instance");
        this.mapName = Objects.requireNonNull(mapName, "mapName");
        this.retryTimeoutNanos = retryTimeout.toNanos();
        this.time = Objects.requireNonNull(time, "time");
    }

    /** Hazelcast's cluster time of {@code instance} in nanoseconds since the epoch (a client's is its own clock). */
    public static TimeSource clusterTime(HazelcastInstance instance) {
        return () -> instance.getCluster().getClusterTime() * NANOS_PER_MILLI;
    }

    /** Executes on the calling thread, completed when it returns; see {@link #execute}. */
    @Override
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        try {
            return CompletableFuture.completedFuture(execute(key, command));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Decides, records and reserves with one compare-and-set loop, peeks with one read; a count is kept (no way to
     * take it back), an estimate is counted as a decision and settled as a store that cannot give back settles (an
     * excess recorded, an estimate above the actual cost kept); a reset deletes the key's value (a decision racing
     * with it either wrote before, and is forgotten, or decides again). Concurrency permits need the members to run
     * Sluice's processors, and fail.
     *
     * @throws ConcurrentModificationException when other callers changed the key before every write of this decision
     *     for longer than the retry timeout; nothing was counted
     * @throws IllegalStateException when the key holds a value this store cannot read (another format, or not a
     *     Sluice state)
     */
    @Override
    @SuppressWarnings("unchecked") // each branch answers its command's own type
    public <R> R execute(String key, Command<R> command) {
        if (command instanceof Command.Admission<R> admission) {
            Policy policy = admission.policy();
            Decision decision = decide(key, policy, (state, now) -> policy.apply(state, now, admission.cost(),
                    admission.maxDelayNanos()));
            if (command instanceof Command.Estimate estimate && decision.allowed()) {
                return (R) Counted.reservation(decision, () -> CompletableFuture.completedFuture(decision),
                        actual -> executeAsync(key, Command.settle(policy, estimate.cost(), actual, "-")));
            }
            return admission.kept(decision);
        } else if (command instanceof Command.Settle settle) {
            return (R) (settle.actual() > settle.estimate()
                    ? execute(key, Command.record(settle.policy(), settle.actual() - settle.estimate(), 0))
                    : peek(key, settle.policy(), 0));
        } else if (command instanceof Command.Peek peek) {
            return (R) peek(key, peek.policy(), peek.cost());
        } else if (command instanceof Command.Record record) {
            Policy policy = record.policy();
            return (R) decide(key, policy, (state, now) -> policy.record(state, now, record.cost(),
                    record.ageNanos()));
        } else if (command instanceof Command.Reserve reserve) {
            Policy policy = reserve.policy();
            return (R) decide(key, policy, (state, now) -> policy.reserve(state, now, reserve.cost(),
                    reserve.maxWaitNanos()));
        } else if (command instanceof Command.Reset) {
            return reset(key);
        }
        throw new IllegalStateException("Sluice: concurrency permits need the members to run Sluice's entry"
                + " processors");
    }

    /** Deletes the key's value; answers nothing (a reset's answer is {@link Void}). */
    @SuppressWarnings("NullAway")
    private <R> R reset(String key) {
        map().delete(key);
        return null;
    }

    /** One step of a policy on a key's state at a time. */
    @FunctionalInterface
    private interface Step {
        Transition on(long @Nullable [][] state, long now);
    }

    private Decision decide(String key, Policy policy, Step step) {
        IMap<String, String> counters = map();
        long deadline = System.nanoTime() + retryTimeoutNanos;
        for (int attempt = 1; ; attempt++) {
            String current = counters.get(key);
            Transition transition = step.on(StateText.decode(current), time.nanos());
            if (!transition.changed()) {
                return transition.decision();
            }
            String next = StateText.encode(transition.changedState());
            long ttlSeconds = WriteStateProcessor.ttlSeconds(transition.idleAfterNanos());
            if (current == null) {
                if (counters.putIfAbsent(key, next, ttlSeconds, TimeUnit.SECONDS) == null) {
                    return transition.decision();
                }
            } else if (counters.replace(key, current, next)) {
                expireWhenIdle(counters, key, policy, next, ttlSeconds, deadline);
                return transition.decision();
            }
            // Another caller wrote the key since we read it: decide again on its value, while time allows.
            if (System.nanoTime() - deadline >= 0) {
                throw new ConcurrentModificationException("gave up a decision on map \"" + mapName + "\" after "
                        + attempt + " attempts, past the retry timeout of "
                        + Duration.ofNanos(retryTimeoutNanos).toMillis()
                        + " ms: other callers changed the key before each write; nothing was counted");
            }
        }
    }

    /**
     * Gives the entry just replaced with {@code written} the TTL of the state it holds, as the class comment explains:
     * sets it, then reads the value back, and while someone else has replaced it meanwhile (our TTL may then have cut
     * theirs short), sets the TTL of the value found and reads again. Past {@code deadline}, or on a value it cannot
     * read, it leaves the entry without expiry, which can only keep a count too long, never drop it early; the key's
     * next grant sets a TTL again. The grant itself stands either way.
     */
    private void expireWhenIdle(IMap<String, String> counters, String key, Policy policy, String written,
            long ttlSeconds, long deadline) {
        String expected = written;
        long ttl = ttlSeconds;
        while (true) {
            counters.setTtl(key, ttl, TimeUnit.SECONDS);
            String found = counters.get(key);
            if (found == null || found.equals(expected)) {
                return;
            }
            expected = found;
            try {
                ttl = System.nanoTime() - deadline >= 0 ? NO_EXPIRY : WriteStateProcessor.ttlSeconds(
                        policy.apply(StateText.decode(found), time.nanos(), 0, Long.MAX_VALUE).idleAfterNanos());
            } catch (IllegalStateException foreignValue) {
                ttl = NO_EXPIRY;
            }
            if (ttl == NO_EXPIRY) {
                counters.setTtl(key, NO_EXPIRY, TimeUnit.SECONDS);
                return;
            }
        }
    }

    /** A bare read of the key's value, the policy run on it counting nothing. */
    private Decision peek(String key, Policy policy, long cost) {
        String current = map().get(key);
        return policy.apply(StateText.decode(current), time.nanos(), cost, Long.MAX_VALUE).decision();
    }

    /** The number of keys in the map, counting expired keys Hazelcast has not yet removed. */
    public int size() {
        return map().size();
    }

    private IMap<String, String> map() {
        IMap<String, String> known = map;
        if (known == null) {
            known = instance.getMap(mapName);
            map = known;
        }
        return known;
    }

    /** Does nothing: the store holds no resources of its own, and the instance belongs to the caller. */
    @Override
    public void close() {
    }
}
