package dev.sluice.store;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Durations;
import dev.sluice.internal.state.Transition;
import java.util.Iterator;
import java.util.Optional;
import java.util.UUID;
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
 * another. Memory is bounded: a key expires once back to full capacity (swept in the background), and while
 * {@code maxKeys} live keys are held a new key is refused as a store that cannot count is
 * ({@link Decision#storeUnavailable()}: a 503, never a pass), logged at most once a minute: a counter that still
 * restricts its key is never forgotten to make room. Thread-safe. The model and why it holds:
 * {@code docs/design/local-store.md}.
 *
 * <p>Concurrency permits ({@link Command.Acquire}) live in a map of their own, one key's holders changed under its
 * map bin's lock ({@code compute}), in O(1) but for holders past their maximum hold (found by one scan once the
 * earliest may have ended) and a full key (a scan for the earliest end, which its answer states). A key is
 * there while it holds permits, never evicted (an evicted permit would let one more in); at most {@code maxKeys} keys
 * hold permits at once, and a permit of another key is then refused as a store that cannot count is
 * ({@link Decision#storeUnavailable()}: a 503, never a pass) until one ends, which is logged, at most once a minute;
 * see {@code docs/design/concurrency.md}.
 */
public final class LocalCounterStore implements CounterStore {

    /** The default bound on the number of keys. */
    public static final long DEFAULT_MAX_KEYS = 1_000_000;

    private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    private static final int EXPIRED_SAMPLE = 16;
    /** What a refusal for want of room for another key's permits says to wait: one sweep. */
    private static final long FULL_RETRY_NANOS = SWEEP_INTERVAL_NANOS;
    private static final long FULL_WARN_INTERVAL_NANOS = 60 * SWEEP_INTERVAL_NANOS;
    private static final System.Logger LOG = System.getLogger(LocalCounterStore.class.getName());

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, PermitHolders> permits = new ConcurrentHashMap<>();
    private final AtomicLong permitIds = new AtomicLong();
    /** Names this store's permits apart from another store's, in their ids. */
    private final String storeId = UUID.randomUUID().toString();
    private final TimeSource time;
    private final long maxKeys;
    private final Executor sweeper;
    private final AtomicLong nextSweepAt;
    private final AtomicBoolean sweeping = new AtomicBoolean();
    /** When a refusal for want of room for permits may next be logged (System.nanoTime). */
    private final AtomicLong nextFullWarning = new AtomicLong(Long.MIN_VALUE);
    private final StoreServices services;

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
        this.services = StoreServices.inMemory(LimitOverrides.inMemory(time), time);
    }

    /** Executes on the calling thread (each command is one step in this heap), completed when it returns. */
    @Override
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        try {
            return CompletableFuture.completedFuture(execute(key, command));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    @SuppressWarnings("unchecked") // each branch answers its command's own type
    public <R> R execute(String key, Command<R> command) {
        // A decision first and alone: this method stays small enough for the JIT to inline, and the command and the
        // step then cost no allocation.
        if (command instanceof Command.Decide decide) {
            return (R) apply(key, decide.policy(), decide.cost(), decide.maxDelayNanos());
        }
        return executeOther(key, command);
    }

    private Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        return decide(key, (state, now) -> policy.apply(state, now, cost, maxDelayNanos));
    }

    @SuppressWarnings("unchecked") // each branch answers its command's own type
    private <R> R executeOther(String key, Command<R> command) {
        if (command instanceof Command.Count count) {
            return (R) count(key, count.policy(), count.cost(), count.maxDelayNanos());
        } else if (command instanceof Command.Peek peek) {
            return (R) peek(key, peek.policy(), peek.cost());
        } else if (command instanceof Command.Estimate estimate) {
            return (R) estimate(key, estimate.policy(), estimate.cost(), estimate.maxDelayNanos());
        } else if (command instanceof Command.Settle settle) {
            return (R) settle(key, settle);
        } else if (command instanceof Command.Record record) {
            return (R) decide(key, (state, now) -> record.policy().record(state, now, record.cost(),
                    record.ageNanos()));
        } else if (command instanceof Command.Reserve reserve) {
            return (R) decide(key, (state, now) -> reserve.policy().reserve(state, now, reserve.cost(),
                    reserve.maxWaitNanos()));
        } else if (command instanceof Command.Acquire acquire) {
            return (R) acquire(key, acquire.limit());
        } else if (command instanceof Command.Release release) {
            return (R) release(key, release);
        } else if (command instanceof Command.Reset) {
            return reset(key);
        }
        throw new IllegalArgumentException("not a command this store knows: " + command);
    }

    /** Forgets the key's counter and permits; answers nothing (a reset's answer is {@link Void}). */
    @SuppressWarnings("NullAway")
    private <R> R reset(String key) {
        entries.remove(key);
        permits.remove(key);
        return null;
    }

    /** Applies now; a grant is taken back as of the instant it was counted ({@link Policy#undo}). */
    private Counted count(String key, Policy policy, long cost, long maxDelayNanos) {
        long countedAt = time.nanos();
        Decision decision = decide(key, countedAt, (state, now) -> policy.apply(state, now, cost, maxDelayNanos));
        if (!decision.allowed() || cost == 0) {
            return Counted.kept(decision);
        }
        return new Counted(decision, new Undoable(key, policy, cost, countedAt));
    }

    /** A granted count, taken back as of the instant it was counted. */
    private class Undoable implements Counted.Held {
        final String key;
        final Policy policy;
        final long cost;
        final long countedAt;

        Undoable(String key, Policy policy, long cost, long countedAt) {
            this.key = key;
            this.policy = policy;
            this.cost = cost;
            this.countedAt = countedAt;
        }

        @Override
        public CompletionStage<Decision> giveBack(Decision decision) {
            return CompletableFuture.completedFuture(decide(key, (state, now) -> policy.undo(state, now, cost,
                    countedAt)));
        }
    }

    /**
     * Applies now; a grant is taken back or settled as of the instant it was counted ({@link Policy#undo},
     * {@link Policy#settle}), its id {@code <store id>:<instant>}, so that another store's id settles nothing here.
     */
    private Counted estimate(String key, Policy policy, long estimate, long maxDelayNanos) {
        long countedAt = time.nanos();
        Decision decision = decide(key, countedAt, (state, now) -> policy.apply(state, now, estimate, maxDelayNanos));
        if (!decision.allowed()) {
            return Counted.kept(decision);
        }
        return new Counted(decision, new Reserved(key, policy, estimate, countedAt));
    }

    /**
     * A granted reservation: taken back whole as a count is, or settled at its actual cost (the step it then runs on
     * the key's state), by its id from anywhere that shares this store.
     */
    private final class Reserved extends Undoable implements Step {
        /** Set by the settle before its step runs: a reservation is settled at most once ({@link Counted#settle}). */
        private long actual;

        Reserved(String key, Policy policy, long estimate, long countedAt) {
            super(key, policy, estimate, countedAt);
        }

        @Override
        public CompletionStage<Decision> settle(Decision decision, long actual) {
            this.actual = actual;
            return CompletableFuture.completedFuture(decide(key, this));
        }

        /** Settles at the actual cost. */
        @Override
        public Transition on(long @Nullable [][] state, long now) {
            return policy.settle(state, now, cost, actual, countedAt);
        }

        @Override
        public Optional<String> reservation() {
            return Optional.of(storeId + ":" + countedAt);
        }
    }

    /** Settles a reservation of this store by its id; an id of another {@code LocalCounterStore} settles nothing. */
    private Decision settle(String key, Command.Settle settle) {
        String reservation = settle.id();
        Policy policy = settle.policy();
        int colon = reservation.lastIndexOf(':');
        long countedAt = -1;
        try {
            countedAt = colon < 0 ? -1 : Long.parseLong(reservation, colon + 1, reservation.length(), 10);
        } catch (NumberFormatException e) {
            colon = -1;
        }
        if (colon < 0) {
            throw new IllegalArgumentException("not a reservation id of a LocalCounterStore: " + reservation);
        }
        if (!reservation.substring(0, colon).equals(storeId)) {
            return peek(key, policy, 0);
        }
        return settle(key, policy, settle.estimate(), settle.actual(), countedAt);
    }

    private Decision settle(String key, Policy policy, long estimate, long actual, long countedAt) {
        return decide(key, (state, now) -> policy.settle(state, now, estimate, actual, countedAt));
    }

    /**
     * Takes a permit now, under the key's map bin's lock; its release drops it there again. Its id is this store's
     * own ({@code <store id>:<number>}), so that another store's id releases nothing here. While {@code maxKeys} keys
     * hold permits, a key that holds none is refused, its decision {@linkplain Decision#storeUnavailable() the
     * store's} (a request then gets a 503, not a pass), retrying after a second.
     */
    private Counted acquire(String key, ConcurrencyLimit limit) {
        long now = time.nanos();
        scheduleSweep(now);
        if (permits.size() >= maxKeys && !permits.containsKey(key)) {
            return Counted.kept(noRoomFor(limit));
        }
        long permit = permitIds.incrementAndGet();
        PermitHolders.Taking taking = new PermitHolders.Taking(permit, now, limit);
        permits.compute(key, (k, held) -> (held != null ? held : new PermitHolders()).take(taking));
        Decision decision = taking.decision();
        if (!decision.allowed()) {
            return Counted.kept(decision);
        }
        return Counted.permit(decision, () -> storeId + ":" + permit,
                () -> CompletableFuture.completedFuture(release(key, limit, permit)));
    }

    /** Releases a permit of this store by its id; an id of another {@code LocalCounterStore} releases nothing. */
    private Decision release(String key, Command.Release release) {
        String permit = release.id();
        ConcurrencyLimit limit = release.limit();
        int colon = permit.lastIndexOf(':');
        long number;
        try {
            number = colon < 0 ? -1 : Long.parseLong(permit.substring(colon + 1));
        } catch (NumberFormatException e) {
            number = -1;
        }
        if (number < 1) {
            throw new IllegalArgumentException("not a permit id of a LocalCounterStore: " + permit);
        }
        if (!permit.substring(0, colon).equals(storeId)) {
            return lookAt(key, limit);
        }
        return release(key, limit, number);
    }

    private Decision release(String key, ConcurrencyLimit limit, long permit) {
        return lookAt(limit, permits.computeIfPresent(key, (k, held) -> held.release(permit)));
    }

    /** The refusal of a permit of a new key while {@code maxKeys} keys hold permits, logged (without the key). */
    private Decision noRoomFor(ConcurrencyLimit limit) {
        warnFull("concurrency permits");
        return Decision.rejected(limit.permits(), limit.name(), FULL_RETRY_NANOS).resetIn(FULL_RETRY_NANOS)
                .storeUnavailable().build();
    }

    /** The refusal of a new key's counter while {@code maxKeys} live ones are held, logged (without the key). */
    private Decision noRoomFor(Decision decided) {
        warnFull("counters");
        return Decision.rejected(decided.limit(), decided.limitName(), FULL_RETRY_NANOS).resetIn(FULL_RETRY_NANOS)
                .storeUnavailable().build();
    }

    /** Says, at most once a minute, that the store holds {@code what} for as many keys as it may. */
    private void warnFull(String what) {
        long wall = System.nanoTime();
        long next = nextFullWarning.get();
        if ((next == Long.MIN_VALUE || wall - next >= 0)
                && nextFullWarning.compareAndSet(next, wall + FULL_WARN_INTERVAL_NANOS)) {
            LOG.log(System.Logger.Level.WARNING, "Sluice's local store holds " + what + " for " + maxKeys + " keys,"
                    + " its most (maxKeys): another key is refused as the limiter being unavailable (503) until some"
                    + " expire or end; raise max-keys if these are real clients (said at most once a minute)");
        }
    }

    /** A bare look at the key's permits: what a release answers. */
    private Decision lookAt(String key, ConcurrencyLimit limit) {
        return lookAt(limit, permits.get(key));
    }

    private static Decision lookAt(ConcurrencyLimit limit, @Nullable PermitHolders held) {
        long free = limit.permits() - (held == null ? 0 : held.count);
        return Decision.granted(limit.permits(), limit.name()).remaining(Math.max(0, free)).nextPermitIn(0).build();
    }

    /** The keys holding concurrency permits now, those past their maximum hold not yet dropped included. */
    public long permitKeys() {
        return permits.mappingCount();
    }

    /** The concurrency permits held now, over every key, those past their maximum hold not yet dropped included. */
    public long permitsHeld() {
        long held = 0;
        for (PermitHolders holders : permits.values()) {
            held += holders.count;
        }
        return held;
    }

    /** Overrides and entries in this store's memory: they apply to the one instance that uses it. */
    @Override
    public StoreServices services() {
        return services;
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
            // A debt can make the idle time near Long.MAX_VALUE: wrapped, the sum would read as expired.
            Entry next = new Entry(transition.state(), Durations.saturatedAdd(now, transition.idleAfterNanos()));
            if (entry == null && entries.size() >= maxKeys && !makeRoom(now)) {
                return noRoomFor(transition.decision());
            }
            if (entry == null ? entries.putIfAbsent(key, next) == null : entries.replace(key, entry, next)) {
                return transition.decision();
            }
            // Another thread changed the key since we read it: decide again on its state.
        }
    }

    private Decision peek(String key, Policy policy, long cost) {
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
        for (String key : permits.keySet()) {
            permits.computeIfPresent(key, (k, held) -> held.dropExpired(now));
        }
    }

    @Override
    public void close() {
        entries.clear();
        permits.clear();
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

    /**
     * Removes the expired entries of a small sample of the map (any live one is a counter that still restricts its
     * key, which is never forgotten to make room); whether there is room for a key now.
     */
    private boolean makeRoom(long now) {
        Iterator<Entry> sample = entries.values().iterator();
        for (int i = 0; i < EXPIRED_SAMPLE && sample.hasNext() && entries.size() >= maxKeys; i++) {
            if (sample.next().expiresAt <= now) {
                sample.remove();
            }
        }
        return entries.size() < maxKeys;
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
