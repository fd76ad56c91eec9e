package dev.sluice.hazelcast.internal.sync;

import com.hazelcast.map.EntryProcessor;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.ForgetProcessor;
import dev.sluice.hazelcast.internal.wire.ShardAnswer;
import dev.sluice.hazelcast.internal.wire.ShardCall;
import dev.sluice.hazelcast.internal.wire.SliceResult;
import dev.sluice.hazelcast.internal.wire.SyncProcessor;
import dev.sluice.hazelcast.internal.wire.SyncResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * One node's side of the synchronised mode: per (key, policy) a {@link View} of the key's counters as its owner last
 * answered, with the hits admitted here since. A request is decided here first, from the view: rejected when the view
 * rejects it, admitted (a hit) while the permits this node admitted and the owner has not yet counted stay within the
 * key's budget; past the budget it waits for the owner, which counts this node's hits and then decides it. Hits travel
 * per shard of keys ({@link Lane}, {@link ShardCall}): one call in flight per shard, sent every interval, or at once
 * when a request waits or a key has used half its budget; the owner merges the hits as debts, answers each key's
 * counters at a version, and the node adopts an answer newer than its view, counting again the hits admitted after
 * the call left. A key is in at most one call at a time, so a node's admissions alternate with its adoptions: the
 * over-admission is at most the budget per other node ({@code docs/design/synchronised.md}, with the proof).
 *
 * <p>Views whose counters are back to full capacity, with nothing waiting, are forgotten (a new view of such a key is
 * exact); at most {@code maxKeys} are kept, other keys being decided on the owner. Times are nanoseconds on this node's
 * {@link TimeSource}. Thread-safe: a view changes under its own lock, a lane under its own; one thread sends.
 */
public final class SyncedKeys implements AutoCloseable {

    /** How many intervals pass between two sweeps of the views that can be forgotten. */
    static final int SWEEP_INTERVALS = 50;
    /** A budget is the smallest limit's permits over this, per other node: under 1 % of the limit over it. */
    static final long AUTO_BUDGET_DIVISOR = 100;
    /** How long {@link #close()} and {@link #flush()} wait for the owners' answers. */
    private static final long ANSWER_WAIT_SECONDS = 5;
    private static final System.Logger LOG = System.getLogger(SyncedKeys.class.getName());

    private final Owners owners;
    private final TimeSource time;
    private final OptionalLong storeBudget;
    private final int maxKeys;
    private final IntSupplier membersSeen;
    private final ConcurrentHashMap<ViewKey, View> views = new ConcurrentHashMap<>();
    private final Lane[] lanes = new Lane[ShardCall.SHARDS];
    private final SyncFigures figures;
    private final ScheduledExecutorService sender;
    private final AtomicLong ticks = new AtomicLong();

    /**
     * @param interval how often the hits go to the owners at the latest
     * @param storeBudget the budget of policies without their own; empty for the automatic one
     * @param maxKeys the most views kept at once
     * @param membersSeen the members this node's instance sees now
     */
    public SyncedKeys(Owners owners, TimeSource time, Duration interval, OptionalLong storeBudget, int maxKeys,
                      IntSupplier membersSeen) {
        this.owners = owners;
        this.time = time;
        this.storeBudget = storeBudget;
        this.maxKeys = maxKeys;
        this.membersSeen = membersSeen;
        this.figures = new SyncFigures(time);
        this.sender = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread sending = new Thread(task, "sluice-sync");
            sending.setDaemon(true);
            return sending;
        });
        for (int shard = 0; shard < lanes.length; shard++) {
            lanes[shard] = new Lane(shard, owners, time, figures, this::onSender);
        }
        // A failure must not end the schedule: logged, and the hits are sent again next time.
        sender.scheduleWithFixedDelay(() -> {
            try {
                tick();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "Sluice: synchronising keys failed; retried", e);
            }
        }, interval.toNanos(), interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Decides a request of {@code cost} on {@code key}: from this node's view when it rejects it or the budget holds
     * it, else on the owner once this node's hits of the key are counted there. Completes at once when decided here;
     * else when the owner answers (exceptionally when its call fails). Cancelling a request still waiting withdraws it.
     */
    public CompletableFuture<Decision> decide(String key, Policy policy, long cost, long maxDelayNanos) {
        Optional<View> view = view(key, policy);
        if (view.isEmpty()) {
            figures.ownerDecisions.increment();
            return alone(key, new SyncProcessor(policy, cost, maxDelayNanos, false, new long[0], new long[0]));
        }
        return view.get().decide(cost, maxDelayNanos, time.nanos());
    }

    /**
     * Takes the earliest slot within {@code maxWaitNanos} for {@code cost} permits on {@code key}'s owner, once this
     * node's hits of the key are counted there (see {@link dev.sluice.store.Command.Reserve}): never here, since a
     * slot ahead is the owner's to give.
     */
    public CompletableFuture<Decision> reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        Optional<View> view = view(key, policy);
        if (view.isEmpty()) {
            figures.ownerDecisions.increment();
            return alone(key, new SyncProcessor(policy, cost, maxWaitNanos, true, new long[0], new long[0]));
        }
        return view.get().reserve(cost, maxWaitNanos);
    }

    /**
     * Counts a request made {@code ageNanos} ago as a hit of this node, whether or not it fits (it was made), and
     * answers what a request of one permit would get right after, from the view; see
     * {@link dev.sluice.store.Command.Record}.
     */
    public CompletableFuture<Decision> record(String key, Policy policy, long cost, long ageNanos) {
        Optional<View> view = view(key, policy);
        if (view.isEmpty()) {
            return alone(key, new SyncProcessor(policy, 0, 0, false, new long[] {cost}, new long[] {ageNanos}));
        }
        return CompletableFuture.completedFuture(view.get().record(cost, ageNanos, time.nanos()));
    }

    /**
     * What a request of {@code cost} would get now from this node's view of the key, counting nothing; empty when
     * this node has no view of it (the owner is then asked).
     */
    public Optional<Decision> peek(String key, Policy policy, long cost) {
        View view = views.get(new ViewKey(key, policy));
        return view == null ? Optional.empty() : Optional.of(view.peek(cost, time.nanos()));
    }

    /**
     * A request of the key on its way to the leased slices, when the key keeps exhausting its budget on this node and
     * every hit admitted here is counted by its owner; empty otherwise. Until the visit has
     * {@linkplain SliceVisit#left left}, the key's view admits nothing without its owner.
     */
    public Optional<SliceVisit> enterSlices(String key, Policy policy) {
        View view = views.get(new ViewKey(key, policy));
        return view != null && view.enterSlices() ? Optional.of(new SliceVisit(view)) : Optional.empty();
    }

    /**
     * Takes a slice of the key from its owner with {@code take}: the key's view admits nothing without the owner
     * while the call is out, nor afterwards until it has adopted an answer that counts the slice.
     */
    public CompletableFuture<SliceResult> takeSlice(String key, Policy policy,
                                                    EntryProcessor<String, CounterState, SliceResult> take) {
        Optional<View> view = Optional.ofNullable(views.get(new ViewKey(key, policy)));
        view.ifPresent(View::taking);
        CompletableFuture<ShardAnswer> call;
        try {
            call = owners.call(ShardCall.shardOf(key), List.of(key), List.of(take));
        } catch (RuntimeException e) {
            view.ifPresent(taking -> taking.taken(OptionalLong.empty()));
            throw e;
        }
        return call.whenComplete((answer, failure) -> view.ifPresent(taking -> taking.taken(
                        failure == null ? OptionalLong.of(answer.version(0)) : OptionalLong.empty())))
                .thenApply(answer -> answer.result(0, SliceResult.class));
    }

    /**
     * Runs {@code processor} on {@code key}'s counters on its owner, in a call of its own: what reads or changes a
     * synchronised key other than its hits and its slices (a peek without a view, permits given back).
     */
    public <R> CompletableFuture<R> onOwner(String key, EntryProcessor<String, CounterState, R> processor,
                                             Class<R> answer) {
        return owners.call(ShardCall.shardOf(key), List.of(key), List.of(processor))
                .thenApply(shardAnswer -> shardAnswer.result(0, answer));
    }

    /** Forgets {@code key}: its views here, with the hits they hold, and its counters on its owner. */
    public CompletableFuture<?> forget(String key) {
        views.keySet().removeIf(id -> id.key().equals(key));
        return owners.call(ShardCall.shardOf(key), List.of(key), List.of(new ForgetProcessor()));
    }

    /** A request decided on the owner with no view: a key beyond {@code maxKeys}. */
    private CompletableFuture<Decision> alone(String key, SyncProcessor processor) {
        return onOwner(key, processor, SyncResult.class).thenApply(SyncResult::decision);
    }

    /** The key's view, made when it has none; empty when it has none and {@code maxKeys} are kept. */
    private Optional<View> view(String key, Policy policy) {
        ViewKey id = new ViewKey(key, policy);
        View view = views.get(id);
        if (view == null) {
            if (views.size() >= maxKeys) {
                return Optional.empty();
            }
            view = views.computeIfAbsent(id, made -> new View(key, policy, lanes[ShardCall.shardOf(key)], figures,
                    this::budgetOf));
        }
        return Optional.of(view);
    }

    /**
     * The budget of {@code policy}'s keys on this node: its own, else the store's, else the smallest limit's permits
     * over {@value #AUTO_BUDGET_DIVISOR} per other node, which keeps the over-admission under 1 % of every limit (0,
     * every decision on the owner, for limits below 100 permits per other node).
     */
    public long budgetOf(Policy policy) {
        OptionalLong given = policy.syncBudget().isPresent() ? policy.syncBudget() : storeBudget;
        if (given.isPresent()) {
            return given.getAsLong();
        }
        long smallest = Long.MAX_VALUE;
        for (Limit limit : policy.limits()) {
            smallest = Math.min(smallest, limit.permits());
        }
        return smallest / AUTO_BUDGET_DIVISOR / Math.max(1, nodes() - 1);
    }

    /** Every interval: sends each shard's waiting hits; now and then forgets the views that can be. */
    private void tick() {
        for (Lane lane : lanes) {
            lane.send(false);
        }
        if (ticks.incrementAndGet() % SWEEP_INTERVALS == 0) {
            forgetIdle();
        }
    }

    /**
     * Forgets the views whose counters are back to full capacity with nothing waiting: a new view of such a key starts
     * empty, which is exact. Done every {@value #SWEEP_INTERVALS} intervals.
     */
    public void forgetIdle() {
        long now = time.nanos();
        views.values().removeIf(view -> view.forgettable(now));
    }

    /**
     * Sends every shard's waiting hits now, after the call in flight where there is one, and waits (a few seconds at
     * most) for the answers: every hit admitted before the call is counted by its owner when it returns, unless a call
     * failed. For tests and {@link #close()}.
     */
    public void flush() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_WAIT_SECONDS);
        for (Lane lane : lanes) {
            while (lane.flushing(deadline)) {
                // each round sends what is listed, or waits for the call in flight
            }
        }
    }

    /** Runs a send asked for at once on the sending thread; once stopped, none: a closing flush sends what waits. */
    private void onSender(Runnable send) {
        try {
            sender.execute(send);
        } catch (RejectedExecutionException stopped) {
            // closing: the flush that follows sends it
        }
    }

    /** Decisions made from views, with no call, since the start. */
    public long localDecisions() {
        return figures.localDecisions.sum();
    }

    /** Decisions made on the owners since the start: requests past their budget, and keys with no view. */
    public long ownerDecisions() {
        return figures.ownerDecisions.sum();
    }

    /** Calls that carried hits or requests to the owners since the start. */
    public long messagesSent() {
        return figures.callsSent.sum();
    }

    /** Those calls that failed (their hits were sent again) since the start. */
    public long messagesFailed() {
        return figures.callsFailed();
    }

    /** The longest a call has taken to be answered (or to fail), in nanoseconds, since the start. */
    public long longestRoundTripNanos() {
        return figures.longestRoundTripNanos();
    }

    /** Permits admitted here that no owner has counted yet (waiting or in flight). */
    public long hitsWaiting() {
        long waiting = 0;
        for (View view : views.values()) {
            waiting += view.unacked();
        }
        return waiting;
    }

    /** How long the oldest hit not yet counted by its owner has waited, in nanoseconds; 0 with none. */
    public long lagNanos() {
        long now = time.nanos();
        long lag = 0;
        for (View view : views.values()) {
            lag = Math.max(lag, view.lagNanos(now));
        }
        return lag;
    }

    /**
     * The permits of this node's hits that their owners found no room for when they merged them, since the start,
     * per the part of each key before its first {@code |} (a rule set's keys: the rule and its fingerprint).
     */
    public Map<String, Long> overAdmitted() {
        return figures.overAdmitted();
    }

    /** The nodes the budgets are computed for: the most an owner said it saw, at least this node's members. */
    public int nodes() {
        return Math.max(figures.nodesSeen(), membersSeen.getAsInt());
    }

    /** Views kept now. */
    public int keys() {
        return views.size();
    }

    /** Stops sending and sends every waiting hit once more, waiting a few seconds at most for the answers. */
    @Override
    public void close() {
        stop();
        flush();
    }

    /** Stops sending, sending nothing more: for a node whose Hazelcast instance has already stopped. */
    public void stop() {
        sender.shutdown();
    }

    private record ViewKey(String key, Policy policy) {
    }
}
