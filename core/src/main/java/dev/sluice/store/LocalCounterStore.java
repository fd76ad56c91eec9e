package dev.sluice.store;

import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Transition;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CounterStore} in this JVM's heap: for a single instance, for tests, and as the fallback when a remote
 * store fails.
 *
 * <p>Lock-free: a decision reads the key's immutable entry, runs the pure algorithm on it and, when the state
 * changed, installs the new entry only if the old one is still there ({@code putIfAbsent}, or {@code replace} by
 * identity), else decides again. A rejection writes nothing. Decisions on one key are atomic, as if made one after
 * another. Memory is bounded: a key expires once back to full capacity (swept in the background), and beyond
 * {@code maxKeys} a new key evicts the sampled entry closest to expiry. Thread-safe. The model and why it holds:
 * {@code docs/design/local-store.md}.
 */
public final class LocalCounterStore implements CounterStore {

    /** The default bound on the number of keys. */
    public static final long DEFAULT_MAX_KEYS = 1_000_000;

    private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    private static final int EVICTION_SAMPLE = 16;

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final TimeSource time;
    private final long maxKeys;
    private final Executor sweeper;
    private final AtomicLong nextSweepAt;
    private final AtomicBoolean sweeping = new AtomicBoolean();

    /** A store on the system clock holding at most {@link #DEFAULT_MAX_KEYS} keys. */
    public LocalCounterStore() {
        this(TimeSource.system(), DEFAULT_MAX_KEYS);
    }

    /** A store on {@code time} holding at most {@code maxKeys} keys, sweeping on the common pool. */
    public LocalCounterStore(TimeSource time, long maxKeys) {
        this(time, maxKeys, ForkJoinPool.commonPool());
    }

    /** As {@link #LocalCounterStore(TimeSource, long)}, with expired keys swept on {@code sweeper}. */
    public LocalCounterStore(TimeSource time, long maxKeys, Executor sweeper) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be at least 1, got " + maxKeys);
        }
        this.time = time;
        this.maxKeys = maxKeys;
        this.sweeper = sweeper;
        this.nextSweepAt = new AtomicLong(time.nanos() + SWEEP_INTERVAL_NANOS);
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        return decide(key, (state, now) -> policy.apply(state, now, cost, maxDelayNanos));
    }

    /** Applies now; a grant is taken back as of the instant it was counted ({@link Policy#undo}). */
    @Override
    public CompletionStage<Counted> countAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        long countedAt = time.nanos();
        Decision decision = decide(key, countedAt, (state, now) -> policy.apply(state, now, cost, maxDelayNanos));
        if (!decision.allowed() || cost == 0) {
            return CompletableFuture.completedFuture(Counted.kept(decision));
        }
        return CompletableFuture.completedFuture(Counted.undoable(decision, () -> CompletableFuture.completedFuture(
                decide(key, time.nanos(), (state, now) -> policy.undo(state, now, cost, countedAt)))));
    }

    @Override
    public Decision record(String key, Policy policy, long cost, long ageNanos) {
        return decide(key, (state, now) -> policy.record(state, now, cost, ageNanos));
    }

    @Override
    public Decision reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        return decide(key, (state, now) -> policy.reserve(state, now, cost, maxWaitNanos));
    }

    @Override
    public void reset(String key) {
        entries.remove(key);
    }

    /** One step of a policy on a key's state at a time. */
    @FunctionalInterface
    private interface Step {
        Transition on(long @Nullable [][] state, long now);
    }

    /** Runs {@code step} on the key's state and installs the result if the state is still the one it read. */
    private Decision decide(String key, Step step) {
        return decide(key, time.nanos(), step);
    }

    /** {@link #decide(String, Step)} at {@code now}. */
    private Decision decide(String key, long now, Step step) {
        scheduleSweep(now);
        while (true) {
            @Nullable Entry entry = entries.get(key);
            long @Nullable [][] state = entry == null || entry.expiresAt <= now ? null : entry.state;
            Transition transition = step.on(state, now);
            if (!transition.changed()) {
                return transition.decision();
            }
            Entry next = new Entry(transition.state(), now + transition.idleAfterNanos());
            if (entry == null ? insert(key, next) : entries.replace(key, entry, next)) {
                return transition.decision();
            }
            // Another thread changed the key since we read it: decide again on its state.
        }
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        long now = time.nanos();
        @Nullable Entry entry = entries.get(key);
        long @Nullable [][] state = entry == null || entry.expiresAt <= now ? null : entry.state;
        return policy.apply(state, now, cost, Long.MAX_VALUE).decision();
    }

    /** The number of keys held, including expired ones not yet swept. */
    public long size() {
        return entries.mappingCount();
    }

    /** Removes every expired key now, on the calling thread. */
    public void cleanUp() {
        long now = time.nanos();
        entries.values().removeIf(entry -> entry.expiresAt <= now);
    }

    /** Forgets every key. */
    @Override
    public void close() {
        entries.clear();
    }

    private void scheduleSweep(long now) {
        long due = nextSweepAt.get();
        if (now >= due && nextSweepAt.compareAndSet(due, now + SWEEP_INTERVAL_NANOS)
                && sweeping.compareAndSet(false, true)) {
            sweeper.execute(() -> {
                try {
                    cleanUp();
                } finally {
                    sweeping.set(false);
                }
            });
        }
    }

    private boolean insert(String key, Entry entry) {
        if (entries.size() >= maxKeys) {
            makeRoom();
        }
        return entries.putIfAbsent(key, entry) == null;
    }

    private void makeRoom() {
        while (entries.size() >= maxKeys) {
            @Nullable String victim = null;
            long soonest = Long.MAX_VALUE;
            Iterator<Map.Entry<String, Entry>> sample = entries.entrySet().iterator();
            for (int i = 0; i < EVICTION_SAMPLE && sample.hasNext(); i++) {
                Map.Entry<String, Entry> candidate = sample.next();
                if (candidate.getValue().expiresAt < soonest) {
                    soonest = candidate.getValue().expiresAt;
                    victim = candidate.getKey();
                }
            }
            if (victim == null) {
                return;
            }
            entries.remove(victim);
        }
    }

    /** A key's state and the time it is back to full capacity. Immutable. */
    private static final class Entry {
        final long @Nullable [][] state;
        final long expiresAt;

        Entry(long @Nullable [][] state, long expiresAt) {
            this.state = state;
            this.expiresAt = expiresAt;
        }
    }
}
