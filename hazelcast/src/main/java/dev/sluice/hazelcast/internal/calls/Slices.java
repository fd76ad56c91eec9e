package dev.sluice.hazelcast.internal.calls;

import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.CounterCommand;
import dev.sluice.hazelcast.internal.wire.SliceResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * One node's side of leasing: the slices this node holds of hot keys, and the traffic that makes a key hot. A request
 * is granted from a valid slice with no call; a hot key with no permit left here takes a slice from its owner (one
 * call, the request decided in it); a key the owner found spent is rejected here, with no call, until the permit the
 * owner said was next is due; a request that finds a call of its key in flight waits for it; any other request is left
 * to the owner ({@link SliceAnswer}). At most one call per key is in flight: a slice taken (ahead of need or
 * not) or permits given back. Times are nanoseconds on this node's {@link TimeSource}.
 *
 * <p>Vocabulary, bounds and proofs: {@code docs/design/leasing.md}.
 *
 * <p>Thread-safe: permits are taken from a slice with an atomic decrement, a key's traffic counts under its own lock.
 */
public final class Slices implements AutoCloseable {

    /** The calls that reach a key's owner: taking a slice and giving permits back. */
    public interface OwnerCalls {

        /** Sends {@link CounterCommand#takeSlice}; the answer is its {@link SliceResult}. */
        CompletableFuture<SliceResult> take(String key, Policy policy, long cost, long wanted, long lifetimeNanos);

        /** Sends {@link CounterCommand#giveBack}. */
        CompletableFuture<?> giveBack(String key, Policy policy, long permits, long countedAtNanos);
    }

    private static final System.Logger LOG = System.getLogger(Slices.class.getName());

    /** How long a key may go unasked before it is forgotten. */
    private static final long FORGET_AFTER_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long {@link #close()} waits for the owners to take back unused permits. */
    private static final long CLOSE_WAIT_SECONDS = 5;

    private final OwnerCalls owner;
    private final TimeSource time;
    private final long lifetimeNanos;
    private final long hotPermits;
    private final long maxSlice;
    private final int maxKeys;
    private final ConcurrentHashMap<String, KeySlices> holds = new ConcurrentHashMap<>();
    private final LongAdder slicesTaken = new LongAdder();
    private final LongAdder grantedFromSlices = new LongAdder();
    private final LongAdder waitedForSlices = new LongAdder();
    private final LongAdder waitedInVain = new LongAdder();
    private final LongAdder givenBack = new LongAdder();
    private final LongAdder rejectedWhileSpent = new LongAdder();
    private volatile @Nullable ScheduledExecutorService sweeper;

    /**
     * @param lifetime how long a bucket's slice lives, and the span traffic is counted in
     * @param hotKeyRate permits per second that make a key hot
     * @param maxSlice the most permits one slice holds
     * @param maxKeys the most keys followed at once
     */
    public Slices(OwnerCalls owner, TimeSource time, Duration lifetime, double hotKeyRate, long maxSlice, int maxKeys) {
        this.owner = owner;
        this.time = time;
        this.lifetimeNanos = lifetime.toNanos();
        this.hotPermits = Math.max(1, (long) Math.ceil(hotKeyRate * (lifetimeNanos / 1e9)));
        this.maxSlice = maxSlice;
        this.maxKeys = maxKeys;
    }

    /** Starts a daemon thread that runs {@link #sweep()} every half lifetime; {@link #close()} stops it. */
    public Slices sweeping() {
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
     * Grants {@code cost} permits of {@code key} from this node's slice, or takes a slice for them (the answer is then
     * the owner's), or waits for the slice on its way; else the owner decides as without leasing. Never blocks.
     */
    public SliceAnswer grant(String key, Policy policy, long cost) {
        long now = time.nanos();
        KeySlices hold = holds.get(key);
        if (hold == null) {
            if (holds.size() >= maxKeys) {
                return SliceAnswer.TO_OWNER;
            }
            hold = holds.computeIfAbsent(key, k -> new KeySlices());
        }
        long recent = hold.seen(now, cost, lifetimeNanos);
        long wanted = Math.min(maxSlice, Math.max(recent / 2, cost + 1));
        Optional<Slice> current = hold.current(now).filter(slice -> slice.policy.equals(policy));
        if (current.isPresent()) {
            Slice slice = current.get();
            Optional<Decision> granted = take(hold, slice, cost, now);
            if (granted.isPresent()) {
                if (2 * slice.left.get() <= slice.permits && recent >= hotPermits) {
                    takeAhead(key, hold, policy, wanted, now);
                }
                return new SliceAnswer.Decided(CompletableFuture.completedFuture(granted.get()));
            }
            if (slice.left.get() > 0) {
                return toOwner(hold, policy, cost);
            }
        }
        Optional<Decision> spent = rejectWhileSpent(hold, policy, cost, now);
        if (spent.isPresent()) {
            return new SliceAnswer.Decided(CompletableFuture.completedFuture(spent.get()));
        }
        if (recent < hotPermits || wanted <= cost) {
            return toOwner(hold, policy, cost);
        }
        KeySlices taker = hold;
        OwnerCall<Decision> taking = hold.callAlone(() -> {
            // The key's one call now, so no slice comes in meanwhile; but one taken ahead may have come in since
            // current() looked. It is granted from: a slice taken now would be counted after it, and the decisions
            // of the one in use would then leave the earlier one out of remaining.
            Optional<Decision> arrived = taker.current(now).filter(slice -> slice.policy.equals(policy))
                    .flatMap(slice -> take(taker, slice, cost, now));
            if (arrived.isPresent()) {
                return CompletableFuture.completedFuture(arrived.get());
            }
            return owner.take(key, policy, cost, wanted, lifetimeNanos).thenApply(answer -> {
                if (answer.permits() == 0) {
                    taker.spent.set(Spent.after(policy, cost, answer.decision(), now).orElse(null));
                    return answer.decision();
                }
                Slice fresh = new Slice(policy, answer, now, cost);
                taker.slice.set(fresh);
                slicesTaken.increment();
                return fresh.decision(fresh.left.get(), now, Optional.empty());
            });
        });
        if (taking instanceof OwnerCall.Started<Decision> started) {
            return new SliceAnswer.Decided(started.call());
        }
        return afterSlice(((OwnerCall.Busy<Decision>) taking).inFlight(), hold, policy, cost);
    }

    /** Takes {@code cost} from {@code slice}, counted as a grant from a slice; empty when it has fewer left. */
    private Optional<Decision> take(KeySlices hold, Slice slice, long cost, long now) {
        Optional<Decision> granted = slice.take(cost, now, Optional.ofNullable(hold.next.get()));
        if (granted.isPresent()) {
            grantedFromSlices.increment();
        }
        return granted;
    }

    /**
     * The rejection of a request of {@code cost} or more while the owner's last answer on the key still holds: it
     * found the key spent for such a request until a time not yet come. Exact: a rejection writes nothing, other nodes
     * only take more meanwhile, and the owner's time of the answer is no earlier than this node's when it asked. (A
     * window slice given back early by another node can free permits sooner; then this node rejects until the time the
     * owner had said, as it would have without the give-back.)
     */
    private Optional<Decision> rejectWhileSpent(KeySlices hold, Policy policy, long cost, long now) {
        Spent spent = hold.spent.get();
        if (spent == null || now >= spent.until() || cost < spent.cost() || !spent.policy().equals(policy)) {
            return Optional.empty();
        }
        rejectedWhileSpent.increment();
        return Optional.of(spent.decision(now));
    }

    /**
     * A request that found no permit while a call of its key is in flight: granted from the slice it brings, else
     * decided by the owner once no call of the key is in flight (see {@code docs/design/leasing.md}).
     */
    private SliceAnswer afterSlice(CompletableFuture<?> inFlight, KeySlices hold, Policy policy, long cost) {
        waitedForSlices.increment();
        return waitFor(inFlight, hold, policy, cost);
    }

    /** {@link #afterSlice}'s wait, again for each call of the key that started meanwhile. */
    private SliceAnswer waitFor(CompletableFuture<?> inFlight, KeySlices hold, Policy policy, long cost) {
        return new SliceAnswer.Waiting(inFlight.handle((done, failure) -> {
            long now = time.nanos();
            Optional<Decision> granted = hold.current(now).filter(slice -> slice.policy.equals(policy))
                    .flatMap(slice -> take(hold, slice, cost, now));
            if (granted.isEmpty()) {
                granted = rejectWhileSpent(hold, policy, cost, now);
            }
            if (granted.isPresent()) {
                return new SliceAnswer.Decided(CompletableFuture.completedFuture(granted.get()));
            }
            CompletableFuture<?> next = hold.taking.get();
            if (next != null) {
                return waitFor(next, hold, policy, cost);
            }
            waitedInVain.increment();
            return SliceAnswer.TO_OWNER;
        }));
    }

    /**
     * Leaves a request to the owner, once no call of its key is in flight from this node: the owner's answer then
     * counts every permit this node gave back before (an idle key's give-back can still be on its way when the next
     * request comes), as an unleased decision made after them would.
     */
    private SliceAnswer toOwner(KeySlices hold, Policy policy, long cost) {
        CompletableFuture<?> inFlight = hold.taking.get();
        return inFlight == null ? SliceAnswer.TO_OWNER : afterSlice(inFlight, hold, policy, cost);
    }

    /** Takes the next slice of {@code hold} in the background, unless it has one or one is on its way. */
    private void takeAhead(String key, KeySlices hold, Policy policy, long wanted, long now) {
        if (hold.next.get() != null || hold.taking.get() != null) {
            return;
        }
        try {
            hold.callAlone(() -> owner.take(key, policy, 0, wanted, lifetimeNanos).thenAccept(answer -> {
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
        for (Map.Entry<String, KeySlices> entry : holds.entrySet()) {
            KeySlices hold = entry.getValue();
            dropExpired(hold.slice, now);
            dropExpired(hold.next, now);
            if (now - hold.lastSeen >= lifetimeNanos / 2) {
                giveBackIdle(entry.getKey(), hold);
            }
            Spent spent = hold.spent.get();
            if (spent != null && now >= spent.until()) {
                hold.spent.compareAndSet(spent, null);
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
    private void giveBackIdle(String key, KeySlices hold) {
        Slice current = hold.slice.get();
        Slice held = current != null ? current : hold.next.get();
        if (held == null || !held.givesBack()) {
            return;
        }
        hold.callAlone(() -> {
            // The next slice first: once it is out, no slice counted after the current one can come into use (a
            // request could otherwise move the next one in between), and no new one is taken meanwhile.
            List<CompletableFuture<?>> calls = new ArrayList<>();
            for (Slice slice : new Slice[] {hold.next.getAndSet(null), hold.slice.getAndSet(null)}) {
                if (slice != null && slice.givesBack()) {
                    calls.add(giveBack(key, slice));
                }
            }
            return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
        });
    }

    /** Sends the owner what is left of {@code slice}, now no longer granted from; done at once when nothing is. */
    private CompletableFuture<?> giveBack(String key, Slice slice) {
        long unused = slice.left.getAndSet(0);
        if (unused == 0) {
            return CompletableFuture.completedFuture(unused);
        }
        givenBack.add(unused);
        try {
            return owner.giveBack(key, slice.policy, unused, slice.countedAtNanos).exceptionally(failure -> {
                LOG.log(System.Logger.Level.DEBUG, "Sluice: unused permits of a slice not given back", failure);
                return null;
            });
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "Sluice: unused permits of a slice not given back", e);
            return CompletableFuture.completedFuture(unused);
        }
    }

    /** Slices taken since the start. */
    public long slicesTaken() {
        return slicesTaken.sum();
    }

    /** Decisions granted from slices, with no call, since the start. */
    public long grantedFromSlices() {
        return grantedFromSlices.sum();
    }

    /** Requests rejected here, with no call, while their key was spent, since the start. */
    public long rejectedWhileSpent() {
        return rejectedWhileSpent.sum();
    }

    /** Requests that waited for a call of their key in flight (each counted once), since the start. */
    public long waitedForSlices() {
        return waitedForSlices.sum();
    }

    /**
     * Requests that waited for a call of their key (a slice on its way, or permits going back) and then went to the
     * owner, since the start.
     */
    public long waitedInVain() {
        return waitedInVain.sum();
    }

    /** Permits given back to owners since the start. */
    public long givenBack() {
        return givenBack.sum();
    }

    /** Whether a slice is on its way for any key. */
    public boolean taking() {
        return holds.values().stream().anyMatch(hold -> hold.taking.get() != null);
    }

    /** The permits this node holds unused in slices still valid now. */
    public long heldPermits() {
        long now = time.nanos();
        long held = 0;
        for (KeySlices hold : holds.values()) {
            for (Slice slice : new Slice[] {hold.slice.get(), hold.next.get()}) {
                held += slice != null && now < slice.expiresAt ? slice.left.get() : 0;
            }
        }
        return held;
    }

    /** Stops the sweeper, giving nothing back: for a node whose Hazelcast instance has already stopped. */
    public void stop() {
        ScheduledExecutorService thread = sweeper;
        if (thread != null) {
            thread.shutdownNow();
        }
    }

    /**
     * Stops the sweeper and gives the unused permits of every valid window slice back, waiting a few seconds at most
     * for the owners; later requests take no slice.
     */
    @Override
    public void close() {
        stop();
        long now = time.nanos();
        List<CompletableFuture<?>> calls = new ArrayList<>();
        for (Map.Entry<String, KeySlices> entry : holds.entrySet()) {
            KeySlices hold = entry.getValue();
            for (Slice slice : new Slice[] {hold.slice.getAndSet(null), hold.next.getAndSet(null)}) {
                if (slice != null && now < slice.expiresAt && slice.givesBack()) {
                    calls.add(giveBack(entry.getKey(), slice));
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
}
