package dev.sluice.hazelcast;

import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Lease;
import dev.sluice.algorithm.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Leased slices for hot keys: one node's side of them. A node that sees a key often takes a <em>slice</em> of the key's
 * permits from the key's owner in one call; the owner counts the whole slice in the key's state as if those permits
 * were granted at that moment, and this node then grants from the slice locally, with no call, until the slice is used
 * up or no longer valid.
 *
 * <p><b>Why it is exact enough.</b> A permit is counted at the owner before any node grants it (the owner counts the
 * slice inside its entry processor, atomically with every other decision on the key, and writes it to the backup
 * before it answers), and a node grants each permit of its slice once (one atomic decrement). What remains is
 * <em>when</em> a permit is granted: a little later than it was counted. For the window algorithms a slice is valid
 * only until the end of the window or step it was counted in, which makes leased decisions exactly as strict as
 * unleased ones; for the token bucket and GCRA a slice lives at most {@link StoreOptions#leaseLifetime() L}, which
 * bounds the excess over the algorithm's own envelope by {@code ceil(L * N / P)} permits, whatever the number of
 * nodes. {@link Lease} proves both. The sliding window log and the leaky bucket never lease.
 *
 * <p><b>Validity on this node's clock.</b> The owner says how long the slice stays valid after it counted it (its
 * window's end less its time, shortened by its clock's resolution). This node counts that from the moment it
 * <em>sent</em> the call, which was no later than the owner's counting, so the slice ends here no later than on the
 * owner's timeline, whatever the skew between the two clocks (they are only assumed to run at the same rate for a
 * few milliseconds).
 *
 * <p><b>Which keys.</b> Only keys whose policy asks for it ({@link Policy#leased()}), and of those only hot ones: this
 * node counts the permits it is asked for per key in spans of L, and a key is hot while the current or the previous
 * span holds at least {@code hotKeyRate * L} permits. A key that is not hot is decided by the owner as it would be
 * without leasing (batched, when batching is on). At most
 * {@link StoreOptions#DEFAULT_MAX_LEASED_KEYS} keys are followed at once; keys idle for a second are forgotten.
 *
 * <p><b>Sizes.</b> This node asks for about half a span's worth of its own traffic on the key (half the larger of the
 * last two spans' permits), at most {@link StoreOptions#maxSlice()}: at a steady rate a slice is used up in half a
 * lifetime, and the next one, taken when the current one is half used, well within its own; the owner grants at most
 * that (scaled down to the slice's validity when its window or step ends within a lifetime) and at most
 * {@code 1/}{@value dev.sluice.algorithm.Algorithm#SLICE_SHARE} of what it has left, and decides the request alone when
 * that is not more than the request's cost. So slices shrink as the key runs out or its window ends, and the last
 * permits of a window are decided one by one at the owner. A request costing more than what is left of the slice goes
 * to the owner; the slice keeps the rest for smaller ones.
 *
 * <p><b>Ahead of need.</b> So that a hot key's requests do not all go to the owner while the next slice is on its
 * way, the request that leaves its slice half used takes the next slice in the background (a lease of cost 0); it is
 * granted from once the current one is used up or invalid. A node so holds at most two slices of a key, the current
 * one at most half full: at most {@code s + s / 2} permits.
 *
 * <p><b>Waiting for a slice on its way.</b> A request of a hot key that finds no permit while a slice of that key is
 * being taken waits for that slice and is granted from it; only when the slice brings too few (or none: the owner had
 * none to give) does it go to the owner, once, with no second wait. Without this wait, every request that arrived in
 * the round trip of a slice went to the owner one by one: measured on the servlet filter with one hot key and 32
 * connections, one request in eight to one in four during a warm-up, each costing a full cluster call. A request that
 * is granted from the slice waits no longer than the call it would otherwise have made, since the slice's call was
 * already under way when it arrived; one that then goes to the owner waits for both. Requests wait alike while an idle
 * key's permits go back (see below): then no slice comes, and they go to the owner. A key has at most one such call at
 * a time: a slice taken, one taken ahead of need, or permits given back.
 *
 * <p><b>What can be lost.</b> A permit counted and never granted is under-admission. This node holds at most
 * {@code s + s / 2} permits of a key, so at any moment all nodes hold at most {@code nodes * (s + s / 2)}, s the
 * largest slice ({@code min(maxSlice, floor(capacity / 8))}). The window slices of a key unasked for L / 2 are given
 * back to the owner if their window (or step) is still the one they were counted in ({@link ReturnProcessor}), and so
 * is every window slice when the store closes; a slice that outlives its window, or a token bucket's or GCRA's slice
 * (their level cannot take tokens back: the bucket might have been full meanwhile), keeps its unused permits until it
 * expires. A node that
 * dies takes its slices' unused permits along: they stay counted until their window ends, or, for the buckets, until
 * refilling has replaced them. The worst case under a steady load is {@code nodes * (s + s / 2)} fewer grants per
 * window or step (per lifetime for the buckets) than the exact algorithm, and a dead node's slices at most once.
 *
 * <p><b>What a decision from a slice says.</b> Allowed, and {@code remaining} is what the owner had left when it
 * last counted a slice for this node (the whole slice excluded) plus what this node holds unused: what an unleased
 * decision at that time would have said if this node's grants had been the only ones since. It never claims
 * more than the owner knew; other nodes' grants since are not seen. The next-permit and reset times are the owner's,
 * less the time since the slice was sent.
 *
 * <p>Thread-safe: slices are taken with an atomic decrement, the per-key traffic counts under the key's own lock.
 */
final class HotKeyLeases implements AutoCloseable {

    /** How the leases reach a key's owner: in the store, the lease and return processors. */
    interface Owner {

        /** Sends a {@link LeaseProcessor}; the answer is its {@link LeaseResult}. */
        CompletableFuture<LeaseResult> lease(String key, Policy policy, long cost, long wanted, long lifetimeNanos);

        /** Sends a {@link ReturnProcessor}. */
        CompletableFuture<?> giveBack(String key, Policy policy, long permits, long countedAtNanos);

        /**
         * Decides the request as without leasing. Called on the thread that completed a lease call, which may be a
         * Hazelcast thread that must not start a remote call itself.
         */
        CompletableFuture<Decision> decide(String key, Policy policy, long cost);
    }

    private static final System.Logger LOG = System.getLogger(HotKeyLeases.class.getName());

    /** How long a key may go unasked before it is forgotten. */
    private static final long FORGET_AFTER_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long {@link #close()} waits for the owners to take back unused permits. */
    private static final long CLOSE_WAIT_SECONDS = 5;

    private final Owner owner;
    private final TimeSource time;
    private final long lifetimeNanos;
    private final long hotPermits;
    private final long maxSlice;
    private final int maxKeys;
    private final ConcurrentHashMap<String, Hold> holds = new ConcurrentHashMap<>();
    private final LongAdder slicesTaken = new LongAdder();
    private final LongAdder grantedFromSlices = new LongAdder();
    private final LongAdder waitedForSlices = new LongAdder();
    private final LongAdder waitedInVain = new LongAdder();
    private final LongAdder givenBack = new LongAdder();
    private volatile @Nullable ScheduledExecutorService sweeper;

    HotKeyLeases(Owner owner, TimeSource time, StoreOptions options) {
        this.owner = owner;
        this.time = time;
        this.lifetimeNanos = options.leaseLifetime().toNanos();
        this.hotPermits = Math.max(1, (long) Math.ceil(options.hotKeyRate() * (lifetimeNanos / 1e9)));
        this.maxSlice = options.maxSlice();
        this.maxKeys = StoreOptions.DEFAULT_MAX_LEASED_KEYS;
    }

    /** Starts a daemon thread that runs {@link #sweep()} every half lifetime; {@link #close()} stops it. */
    HotKeyLeases sweeping() {
        ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread sweeping = new Thread(task, "sluice-lease-sweeper");
            sweeping.setDaemon(true);
            return sweeping;
        });
        // A failure must not end the schedule (it would cancel every later sweep): logged, and swept again next time.
        thread.scheduleWithFixedDelay(() -> {
            try {
                sweep();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "Sluice: sweeping leased slices failed; retried", e);
            }
        }, lifetimeNanos / 2, lifetimeNanos / 2, TimeUnit.NANOSECONDS);
        sweeper = thread;
        return this;
    }

    /**
     * Decides {@code cost} permits of {@code key} from this node's slice, or takes a slice for them (the answer is then
     * the owner's); null when the request goes to the owner as without leasing. Never blocks.
     */
    @Nullable CompletableFuture<Decision> decide(String key, Policy policy, long cost) {
        long now = time.nanos();
        Hold hold = holds.get(key);
        if (hold == null) {
            if (holds.size() >= maxKeys) {
                return null;
            }
            hold = holds.computeIfAbsent(key, k -> new Hold());
        }
        long recent = hold.seen(now, cost, lifetimeNanos);
        long wanted = Math.min(maxSlice, Math.max(recent / 2, cost + 1));
        Slice slice = hold.current(now);
        if (slice != null && slice.policy.equals(policy)) {
            Decision granted = grant(hold, slice, cost, now);
            if (granted != null) {
                if (2 * slice.left.get() <= slice.permits && recent >= hotPermits) {
                    takeAhead(key, hold, policy, wanted, now);
                }
                return CompletableFuture.completedFuture(granted);
            }
            if (slice.left.get() > 0) {
                return null;
            }
        }
        if (recent < hotPermits || wanted <= cost) {
            return null;
        }
        Hold taker = hold;
        CompletableFuture<Decision> taken = hold.exclusively(() -> owner.lease(key, policy, cost, wanted,
                lifetimeNanos).thenApply(answer -> {
                    if (answer.permits() == 0) {
                        return answer.decision();
                    }
                    Slice fresh = new Slice(policy, answer, now, cost);
                    taker.slice.set(fresh);
                    slicesTaken.increment();
                    return fresh.decision(fresh.left.get(), now, null);
                }));
        if (taken != null) {
            return taken;
        }
        CompletableFuture<@Nullable Void> onItsWay = hold.taking.get();
        // Null when the call in flight ended just now: the request goes to the owner as without leasing.
        return onItsWay == null ? null : afterSlice(onItsWay, key, hold, policy, cost);
    }

    /** Takes {@code cost} from {@code slice}, counted as a grant from a slice; null when it has fewer left. */
    private @Nullable Decision grant(Hold hold, Slice slice, long cost, long now) {
        Decision granted = slice.take(cost, now, hold.next.get());
        if (granted != null) {
            grantedFromSlices.increment();
        }
        return granted;
    }

    /**
     * A request that found no permit while a slice is on its way: granted from that slice once it is here, else
     * decided by the owner (see the class comment).
     */
    private CompletableFuture<Decision> afterSlice(CompletableFuture<@Nullable Void> onItsWay, String key, Hold hold,
                                                   Policy policy, long cost) {
        waitedForSlices.increment();
        return onItsWay.thenCompose(here -> {
            long now = time.nanos();
            Slice slice = hold.current(now);
            Decision granted = slice != null && slice.policy.equals(policy) ? grant(hold, slice, cost, now) : null;
            if (granted != null) {
                return CompletableFuture.completedFuture(granted);
            }
            waitedInVain.increment();
            return owner.decide(key, policy, cost);
        });
    }

    /** Takes the next slice of {@code hold} in the background, unless it has one or one is on its way. */
    private void takeAhead(String key, Hold hold, Policy policy, long wanted, long now) {
        if (hold.next.get() != null || hold.taking.get() != null) {
            return;
        }
        try {
            hold.exclusively(() -> owner.lease(key, policy, 0, wanted, lifetimeNanos).thenAccept(answer -> {
                if (answer.permits() > 0) {
                    hold.next.set(new Slice(policy, answer, now, 0));
                    slicesTaken.increment();
                }
            }).exceptionally(failure -> {
                LOG.log(System.Logger.Level.DEBUG, "Sluice: a slice taken ahead of need failed", failure);
                return null;
            }));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "Sluice: a slice taken ahead of need failed", e);
        }
    }

    /**
     * Drops expired slices, gives back the unused permits of window slices of keys idle for half a lifetime (while
     * still in their window or step), and forgets keys idle for a second.
     */
    void sweep() {
        long now = time.nanos();
        for (Map.Entry<String, Hold> entry : holds.entrySet()) {
            Hold hold = entry.getValue();
            dropExpired(hold.slice, now);
            dropExpired(hold.next, now);
            if (now - hold.lastSeen >= lifetimeNanos / 2) {
                giveBackIdle(entry.getKey(), hold);
            }
            if (hold.slice.get() == null && hold.next.get() == null && now - hold.lastSeen >= FORGET_AFTER_NANOS
                    && hold.taking.get() == null) {
                holds.remove(entry.getKey(), hold);
            }
        }
    }

    private static void dropExpired(AtomicReference<@Nullable Slice> place, long now) {
        Slice slice = place.get();
        if (slice != null && now >= slice.expiresAt) {
            place.compareAndSet(slice, null);
        }
    }

    /**
     * Gives back the unused permits of an idle key's window slices. Done as the taking of a slice is, so that no slice
     * of the key is counted while permits of it are on their way back: the owner could count that slice first, and
     * its decisions' remaining would then leave the permits given back out. Skipped while a slice is on its way.
     */
    private void giveBackIdle(String key, Hold hold) {
        Slice current = hold.slice.get();
        Slice held = current != null ? current : hold.next.get();
        if (held == null || !held.givesBack()) {
            return;
        }
        hold.exclusively(() -> {
            // The next slice first: once it is out, no slice counted after the current one can come into use (a
            // request could otherwise move the next one in between), and no new one is taken meanwhile.
            List<CompletableFuture<?>> calls = new ArrayList<>();
            for (Slice slice : new Slice[] {hold.next.getAndSet(null), hold.slice.getAndSet(null)}) {
                CompletableFuture<?> call = slice != null && slice.givesBack() ? giveBack(key, slice) : null;
                if (call != null) {
                    calls.add(call);
                }
            }
            return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
        });
    }

    /** Sends the owner what is left of {@code slice}, now no longer granted from; the call, or null for nothing. */
    private @Nullable CompletableFuture<?> giveBack(String key, Slice slice) {
        long unused = slice.left.getAndSet(0);
        if (unused == 0) {
            return null;
        }
        givenBack.add(unused);
        try {
            return owner.giveBack(key, slice.policy, unused, slice.countedAtNanos).exceptionally(failure -> {
                LOG.log(System.Logger.Level.DEBUG, "Sluice: unused permits of a slice not given back", failure);
                return null;
            });
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "Sluice: unused permits of a slice not given back", e);
            return null;
        }
    }

    /** Slices taken since the start. */
    long slicesTaken() {
        return slicesTaken.sum();
    }

    /** Decisions granted from slices, with no call, since the start. */
    long grantedFromSlices() {
        return grantedFromSlices.sum();
    }

    /** Requests that waited for a slice on its way, since the start. */
    long waitedForSlices() {
        return waitedForSlices.sum();
    }

    /** Requests that waited for a slice on its way and then went to the owner (it brought too few), since the start. */
    long waitedInVain() {
        return waitedInVain.sum();
    }

    /** Permits given back to owners since the start. */
    long givenBack() {
        return givenBack.sum();
    }

    /** Whether a slice is on its way for any key. */
    boolean taking() {
        return holds.values().stream().anyMatch(hold -> hold.taking.get() != null);
    }

    /** The permits this node holds unused in slices still valid now. */
    long heldPermits() {
        long now = time.nanos();
        long held = 0;
        for (Hold hold : holds.values()) {
            for (Slice slice : new Slice[] {hold.slice.get(), hold.next.get()}) {
                held += slice != null && now < slice.expiresAt ? slice.left.get() : 0;
            }
        }
        return held;
    }

    /**
     * Stops the sweeper and gives the unused permits of every valid window slice back, waiting a few seconds at most
     * for the owners; later requests take no slice.
     */
    @Override
    public void close() {
        ScheduledExecutorService thread = sweeper;
        if (thread != null) {
            thread.shutdownNow();
        }
        long now = time.nanos();
        List<CompletableFuture<?>> calls = new ArrayList<>();
        for (Map.Entry<String, Hold> entry : holds.entrySet()) {
            Hold hold = entry.getValue();
            for (Slice slice : new Slice[] {hold.slice.getAndSet(null), hold.next.getAndSet(null)}) {
                CompletableFuture<?> call = slice != null && now < slice.expiresAt && slice.givesBack()
                        ? giveBack(entry.getKey(), slice) : null;
                if (call != null) {
                    calls.add(call);
                }
            }
        }
        holds.clear();
        try {
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.log(System.Logger.Level.DEBUG, "Sluice: not every slice given back on close", e);
        }
    }

    /** One key on this node: its recent traffic, its slice and the next one. */
    private static final class Hold {
        final AtomicReference<@Nullable Slice> slice = new AtomicReference<>();
        /** Taken ahead of need; granted from once {@link #slice} is used up or invalid. */
        final AtomicReference<@Nullable Slice> next = new AtomicReference<>();
        /**
         * While a slice is being taken (or permits given back): completed once it is here (or the call failed), after
         * it is in place; the requests that find no permit meanwhile wait for it.
         */
        final AtomicReference<@Nullable CompletableFuture<@Nullable Void>> taking = new AtomicReference<>();
        private long span = Long.MIN_VALUE;
        private long current;
        private long previous;
        volatile long lastSeen;

        /**
         * The slice to grant from now: the current one while it is valid and not used up, else the next one, which
         * then becomes the current one; null when neither is valid.
         */
        @Nullable Slice current(long now) {
            Slice current = slice.get();
            if (current != null && now < current.expiresAt && current.left.get() > 0) {
                return current;
            }
            Slice following = next.get();
            if (following == null || now >= following.expiresAt) {
                return current != null && now < current.expiresAt ? current : null;
            }
            if (slice.compareAndSet(current, following)) {
                next.compareAndSet(following, null);
            }
            return slice.get();
        }

        /**
         * Runs {@code call} as this key's one call in flight (a slice taken, ahead of need or not, or permits given
         * back); once it ends, however it ends, the next may start and the requests that waited go on. Null, without
         * running it, while another is in flight.
         */
        <T> @Nullable CompletableFuture<T> exclusively(Supplier<CompletableFuture<T>> call) {
            CompletableFuture<@Nullable Void> inFlight = new CompletableFuture<>();
            if (!taking.compareAndSet(null, inFlight)) {
                return null;
            }
            try {
                return call.get().whenComplete((result, failure) -> ended(inFlight));
            } catch (Throwable e) {
                ended(inFlight);
                throw e;
            }
        }

        private void ended(CompletableFuture<@Nullable Void> inFlight) {
            taking.compareAndSet(inFlight, null);
            inFlight.complete(null);
        }

        /** Counts {@code cost} permits asked for now; returns the larger count of this span and the one before. */
        synchronized long seen(long now, long cost, long spanNanos) {
            long at = Math.floorDiv(now, spanNanos);
            if (at != span) {
                previous = at == span + 1 ? current : 0;
                current = 0;
                span = at;
            }
            current += cost;
            lastSeen = now;
            return Math.max(current, previous);
        }
    }

    /** A slice this node grants from. */
    private static final class Slice {
        final Policy policy;
        final long permits;
        final AtomicLong left;
        /** On this node's clock: the time the call was sent plus the validity. */
        final long expiresAt;
        final long sentAt;
        final long countedAtNanos;
        /** The owner's decision on the whole slice. */
        final Decision owner;

        Slice(Policy policy, LeaseResult answer, long sentAt, long firstCost) {
            this.policy = policy;
            this.permits = answer.permits();
            this.left = new AtomicLong(answer.permits() - firstCost);
            this.expiresAt = sentAt + answer.validForNanos();
            this.sentAt = sentAt;
            this.countedAtNanos = answer.countedAtNanos();
            this.owner = answer.decision();
        }

        /**
         * Takes {@code cost} permits: the decision, or null when fewer are left. {@code ahead} is the next slice this
         * node holds, if any: the owner counted it later.
         */
        @Nullable Decision take(long cost, long now, @Nullable Slice ahead) {
            for (long before = left.get(); before >= cost; before = left.get()) {
                if (left.compareAndSet(before, before - cost)) {
                    return decision(before - cost, now, ahead == this ? null : ahead);
                }
            }
            return null;
        }

        /**
         * A grant from this slice with {@code leftAfter} of it still unused: remaining is what the owner last said it
         * had left (when it counted this slice, or the next one) plus what this node holds unused; see the class
         * comment.
         */
        Decision decision(long leftAfter, long now, @Nullable Slice ahead) {
            long since = now - sentAt;
            // A next slice with nothing left was given back meanwhile (it is never granted from while it is next).
            long aheadLeft = ahead == null ? 0 : ahead.left.get();
            long remaining = ahead == null || aheadLeft == 0 ? owner.remaining() + leftAfter
                    : Math.min(owner.remaining() + leftAfter, ahead.owner.remaining() + aheadLeft + leftAfter);
            return new Decision(true, owner.limit(), remaining, 0,
                    Math.max(0, owner.nextPermitNanos() - since), Math.max(0, owner.resetAfterNanos() - since), 0,
                    owner.limitName(), false);
        }

        /** The window algorithms take unused permits back; the buckets' level cannot. */
        boolean givesBack() {
            return policy.algorithm().countsPastRequests();
        }
    }
}
