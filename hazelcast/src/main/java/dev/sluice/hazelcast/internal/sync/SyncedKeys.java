package dev.sluice.hazelcast.internal.sync;

import com.hazelcast.map.EntryProcessor;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.calls.CallAnswer;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.ForgetProcessor;
import dev.sluice.hazelcast.internal.wire.ShardAnswer;
import dev.sluice.hazelcast.internal.wire.ShardCall;
import dev.sluice.hazelcast.internal.wire.SyncProcessor;
import dev.sluice.hazelcast.internal.wire.SyncResult;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One node's side of the synchronised mode: per (key, policy) a view of the key's counters as its owner last
 * answered, with the hits admitted here since. A request is decided here first, from the view: rejected when the view
 * rejects it, admitted (a hit) while the permits this node admitted and the owner has not yet counted stay within the
 * key's budget; past the budget it waits for the owner, which counts this node's hits and then decides it. Hits travel
 * per shard of keys ({@link ShardCall}): one call in flight per shard, sent every interval, or at once when a request
 * waits or a key has used half its budget; the owner merges the hits as debts, answers each key's counters at a
 * version, and the node adopts an answer newer than its view, counting again the hits admitted after the call left.
 * A key is in at most one call at a time, so a node's admissions alternate with its adoptions: the over-admission is
 * at most the budget per other node ({@code docs/design/synchronised.md}, with the proof).
 *
 * <p>Views whose counters are back to full capacity, with nothing waiting, are forgotten (a new view of such a key is
 * exact); at most {@code maxKeys} are kept, other keys being decided on the owner. Times are nanoseconds on this node's
 * {@link TimeSource}, unless named owner times. Thread-safe: a view changes under its own lock, a shard's lane under
 * its own; one thread sends.
 */
public final class SyncedKeys implements AutoCloseable {

    /** The calls that reach the owners. */
    public interface Owners {

        /**
         * Runs {@code processors} on {@code keys}, all of shard {@code shard} and distinct, in one call on the shard's
         * owner; completes with the answer, or exceptionally when the call fails.
         */
        CompletableFuture<ShardAnswer> call(int shard, List<String> keys,
                                            List<? extends EntryProcessor<String, CounterState, ?>> processors);
    }

    /** How many intervals pass between two sweeps of the views that can be forgotten. */
    static final int SWEEP_INTERVALS = 50;
    /** A budget is the smallest limit's permits over this, per other node: under 1 % of the limit over it. */
    static final long AUTO_BUDGET_DIVISOR = 100;
    /** How long {@link #close()} and {@link #flush()} wait for the owners' answers. */
    private static final long ANSWER_WAIT_SECONDS = 5;
    private static final System.Logger LOG = System.getLogger(SyncedKeys.class.getName());
    private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Owners owners;
    private final TimeSource time;
    private final long intervalNanos;
    private final OptionalLong storeBudget;
    private final int maxKeys;
    private final IntSupplier membersSeen;
    private final ConcurrentHashMap<ViewKey, View> views = new ConcurrentHashMap<>();
    private final Lane[] lanes = new Lane[ShardCall.SHARDS];
    /** The most nodes (members and clients) an owner said it saw; at least the members this node sees. */
    private volatile int nodesSeen;
    private final LongAdder localDecisions = new LongAdder();
    private final LongAdder ownerDecisions = new LongAdder();
    private final LongAdder callsSent = new LongAdder();
    private final LongAdder callsFailed = new LongAdder();
    private final ConcurrentHashMap<String, LongAdder> overAdmitted = new ConcurrentHashMap<>();
    /** The longest a call took to be answered, in nanoseconds: the round trip {@code d}. */
    private final AtomicLong longestRoundTrip = new AtomicLong();
    /** Whether the calls are failing now: said once when a run of failures starts and once when it ends. */
    private final AtomicBoolean failing = new AtomicBoolean();
    /** When a failing run was last said, in local time; lines repeat at most every {@link #LOG_EVERY_NANOS}. */
    private final AtomicLong failureSaidAt = new AtomicLong();
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
        this.intervalNanos = interval.toNanos();
        this.storeBudget = storeBudget;
        this.maxKeys = maxKeys;
        this.membersSeen = membersSeen;
        for (int shard = 0; shard < lanes.length; shard++) {
            lanes[shard] = new Lane(shard);
        }
        this.sender = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread sending = new Thread(task, "sluice-sync");
            sending.setDaemon(true);
            return sending;
        });
        // A failure must not end the schedule: logged, and the hits are sent again next time.
        sender.scheduleWithFixedDelay(() -> {
            try {
                tick();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "Sluice: synchronising keys failed; retried", e);
            }
        }, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Decides a request of {@code cost} on {@code key}: from this node's view when it rejects it or the budget holds
     * it, else on the owner once this node's hits of the key are counted there. Completes at once when decided here;
     * else when the owner answers (exceptionally when its call fails). Cancelling a request still waiting withdraws it.
     */
    public CompletableFuture<Decision> decide(String key, Policy policy, long cost, long maxDelayNanos) {
        Optional<View> view = view(key, policy);
        if (view.isEmpty()) {
            ownerDecisions.increment();
            return alone(key, new SyncProcessor(policy, cost, maxDelayNanos, false, new long[0], new long[0]))
                    .thenApply(SyncResult::decision);
        }
        return view.get().decide(cost, maxDelayNanos, time.nanos());
    }

    /**
     * Takes the earliest slot within {@code maxWaitNanos} for {@code cost} permits on {@code key}'s owner, once this
     * node's hits of the key are counted there (see {@link dev.sluice.store.CounterStore#reserve}): never here, since a
     * slot ahead is the owner's to give.
     */
    public CompletableFuture<Decision> reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        Optional<View> view = view(key, policy);
        if (view.isEmpty()) {
            ownerDecisions.increment();
            return alone(key, new SyncProcessor(policy, cost, maxWaitNanos, true, new long[0], new long[0]))
                    .thenApply(SyncResult::decision);
        }
        return view.get().reserve(cost, maxWaitNanos);
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
     * Counts a request made {@code ageNanos} ago as a hit of this node, whether or not it fits (it was made), and
     * answers what a request of one permit would get right after, from the view; see
     * {@link dev.sluice.store.CounterStore#record}.
     */
    public CompletableFuture<Decision> record(String key, Policy policy, long cost, long ageNanos) {
        Optional<View> view = view(key, policy);
        if (view.isEmpty()) {
            return alone(key, new SyncProcessor(policy, 0, 0, false, new long[] {cost}, new long[] {ageNanos}))
                    .thenApply(SyncResult::decision);
        }
        return CompletableFuture.completedFuture(view.get().record(cost, ageNanos, time.nanos()));
    }

    /**
     * Runs {@code processor} on {@code key}'s counters on its owner, in a call of its own: what reads or changes a
     * synchronised key other than its hits (a peek, a reservation, a reset).
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

    /** A processor's call on {@code key} with no view: a key beyond {@code maxKeys}. */
    private CompletableFuture<SyncResult> alone(String key, SyncProcessor processor) {
        return onOwner(key, processor, SyncResult.class);
    }

    /** The key's view, made when it has none; empty when it has none and {@code maxKeys} are kept. */
    private Optional<View> view(String key, Policy policy) {
        ViewKey id = new ViewKey(key, policy);
        View view = views.get(id);
        if (view == null) {
            if (views.size() >= maxKeys) {
                return Optional.empty();
            }
            view = views.computeIfAbsent(id, made -> new View(made, lanes[ShardCall.shardOf(key)]));
        }
        return Optional.of(view);
    }

    /**
     * The budget of {@code policy}'s keys on this node: its own, else the store's, else the smallest limit's permits
     * over {@value #AUTO_BUDGET_DIVISOR} per other node, which keeps the over-admission under 1 % of every limit (0,
     * every decision on the owner, for limits below 100 permits per other node).
     */
    long budgetOf(Policy policy) {
        OptionalLong given = policy.syncBudget().isPresent() ? policy.syncBudget() : storeBudget;
        if (given.isPresent()) {
            return given.getAsLong();
        }
        long smallest = Long.MAX_VALUE;
        for (Limit limit : policy.limits()) {
            smallest = Math.min(smallest, limit.permits());
        }
        long others = Math.max(1, Math.max(nodesSeen, membersSeen.getAsInt()) - 1);
        return smallest / AUTO_BUDGET_DIVISOR / others;
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

    /** Decisions made from views, with no call, since the start. */
    public long localDecisions() {
        return localDecisions.sum();
    }

    /** Decisions made on the owners since the start: requests past their budget, and keys with no view. */
    public long ownerDecisions() {
        return ownerDecisions.sum();
    }

    /** Calls that carried hits or requests to the owners since the start. */
    public long messagesSent() {
        return callsSent.sum();
    }

    /** Those calls that failed (their hits were sent again) since the start. */
    public long messagesFailed() {
        return callsFailed.sum();
    }

    /** The longest a call has taken to be answered (or to fail), in nanoseconds, since the start. */
    public long longestRoundTripNanos() {
        return longestRoundTrip.get();
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
        Map<String, Long> sums = new TreeMap<>();
        overAdmitted.forEach((scope, permits) -> sums.put(scope, permits.sum()));
        return sums;
    }

    /** The nodes the budgets are computed for: the most an owner said it saw, at least this node's members. */
    public int nodes() {
        return Math.max(nodesSeen, membersSeen.getAsInt());
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

    /**
     * A call failed: counted, and logged (without keys) when a run of failures starts, then at most once a minute
     * while it lasts.
     */
    private void failed(Throwable cause) {
        callsFailed.increment();
        long now = time.nanos();
        long said = failureSaidAt.get();
        boolean starts = failing.compareAndSet(false, true);
        if (starts || now - said >= LOG_EVERY_NANOS && failureSaidAt.compareAndSet(said, now)) {
            failureSaidAt.set(now);
            LOG.log(System.Logger.Level.WARNING, "Sluice: synchronising keys with their owners failed ("
                    + messagesFailed() + " calls failed since the start); the hits wait and are sent again, and the"
                    + " requests past their budget are decided by the failure policy. Cause: " + cause);
        }
    }

    /** A call answered: ends a run of failures, said once. */
    private void answeredAgain() {
        if (failing.get() && failing.compareAndSet(true, false)) {
            LOG.log(System.Logger.Level.INFO, "Sluice: synchronising keys with their owners works again ("
                    + messagesFailed() + " calls failed since the start)");
        }
    }

    /** Runs {@code send} on the sending thread; once stopped, on the caller (a closing flush). */
    private void onSender(Runnable send) {
        try {
            sender.execute(send);
        } catch (RejectedExecutionException stopped) {
            send.run();
        }
    }

    private record ViewKey(String key, Policy policy) {
    }

    /** A request past its budget, waiting for the owner: withdrawn by cancelling until claimed. */
    private static final class Waiter {
        final CallAnswer<Decision> answer = CallAnswer.waiting();
        final long cost;
        final long maxDelayNanos;
        /** A reservation of the earliest slot ({@link Policy#reserve}): decided on the owner only. */
        final boolean reserve;
        /** Set under the view's lock once the request is to be decided, here or on the owner: no withdrawing then. */
        boolean claimed;

        Waiter(long cost, long maxDelayNanos, boolean reserve) {
            this.cost = cost;
            this.maxDelayNanos = maxDelayNanos;
            this.reserve = reserve;
        }

        /** Claims the request unless it was withdrawn; false: forget it. */
        boolean claim() {
            claimed = claimed || answer.send();
            return claimed;
        }
    }

    /** What a view sends in a call: its processor, and the waiter it decides, if any. */
    private record Part(View view, SyncProcessor processor, Optional<Waiter> exact) {
    }

    /** A completion to run once no lock is held (it may run a request's next steps). */
    private record Completion(Waiter waiter, @Nullable Decision decision, @Nullable Throwable failure) {

        void run() {
            if (failure != null) {
                waiter.answer.completeExceptionally(failure);
            } else {
                waiter.answer.complete(decision);
            }
        }
    }

    /**
     * One shard's calls from this node: at most one in flight; the views listed wait for the next. Guarded by
     * itself.
     */
    private final class Lane {
        private final int shard;
        /** The owner's clock minus this node's, as low as any answer said: never ahead of the owner's time. */
        private volatile long offsetNanos = Long.MIN_VALUE;
        private List<View> listed = new ArrayList<>();
        private boolean inFlight;
        /** A send is wanted as soon as the call in flight answers. */
        private boolean urgent;
        /** A send is queued on the sending thread. */
        private boolean queued;
        /** Completes when the call in flight answers; for {@link #flushed()}. */
        private CompletableFuture<Void> answered = CompletableFuture.completedFuture(null);

        Lane(int shard) {
            this.shard = shard;
        }

        /** This node's estimate of the owner's time at local time {@code now}. */
        long ownerNanos(long now) {
            long offset = offsetNanos;
            return offset == Long.MIN_VALUE ? now : now + offset;
        }

        /** Lists {@code view} for the next call; {@code urgent}: send it as soon as possible. */
        synchronized void list(View view, boolean urgent) {
            listed.add(view);
            if (urgent) {
                wantNow();
            }
        }

        /** Asks for a send as soon as the call in flight (if any) answers. Guarded. */
        private void wantNow() {
            urgent = true;
            if (!inFlight && !queued) {
                queued = true;
                onSender(() -> send(true));
            }
        }

        /** Sends the listed views' hits and requests, unless a call is in flight; {@code queuedSend}: queued. */
        void send(boolean queuedSend) {
            List<View> sending;
            synchronized (this) {
                if (queuedSend) {
                    queued = false;
                }
                if (inFlight || listed.isEmpty()) {
                    return;
                }
                int count = Math.min(listed.size(), WireFormat.MAX_BATCH_REQUESTS);
                sending = new ArrayList<>(listed.subList(0, count));
                listed = new ArrayList<>(listed.subList(count, listed.size()));
                inFlight = true;
                urgent = !listed.isEmpty();
                answered = new CompletableFuture<>();
            }
            long sentAt = time.nanos();
            List<Part> parts = new ArrayList<>(sending.size());
            for (View view : sending) {
                view.outgoing(sentAt).ifPresent(parts::add);
            }
            if (parts.isEmpty()) {
                ended(List.of());
                return;
            }
            List<String> keys = new ArrayList<>(parts.size());
            List<SyncProcessor> processors = new ArrayList<>(parts.size());
            for (Part part : parts) {
                keys.add(part.view().id.key());
                processors.add(part.processor());
            }
            callsSent.increment();
            CompletableFuture<ShardAnswer> call;
            try {
                call = owners.call(shard, keys, processors);
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            call.whenComplete((answer, failure) -> answered(parts, sentAt, answer, failure));
        }

        private void answered(List<Part> parts, long sentAt, @Nullable ShardAnswer answer,
                              @Nullable Throwable failure) {
            long received = time.nanos();
            longestRoundTrip.accumulateAndGet(received - sentAt, Math::max);
            List<Completion> completions = new ArrayList<>();
            if (answer != null && answer.size() == parts.size()) {
                answeredAgain();
                offsetNanos = Math.max(offsetNanos, answer.ownerNanos() - received);
                nodesSeen = Math.max(1, answer.nodes());
                for (int i = 0; i < parts.size(); i++) {
                    SyncResult result = answer.result(i, SyncResult.class);
                    parts.get(i).view().answered(parts.get(i), result, answer.version(i), received, completions);
                }
            } else {
                Throwable cause = failure != null ? failure : new IllegalStateException("a shard call answered "
                        + (answer == null ? "nothing" : answer.size() + " keys") + " of " + parts.size());
                failed(cause);
                for (Part part : parts) {
                    part.view().failed(part, cause, completions);
                }
            }
            ended(completions);
        }

        /** The call in flight ended: the next may go, and the requests it decided go on. */
        private void ended(List<Completion> completions) {
            CompletableFuture<Void> done;
            synchronized (this) {
                inFlight = false;
                done = answered;
                if (urgent && !listed.isEmpty() && !queued) {
                    queued = true;
                    onSender(() -> send(true));
                }
            }
            done.complete(null);
            completions.forEach(Completion::run);
        }

        /**
         * One step of a flush: waits (until {@code deadline} at most) for the call in flight, or sends what is listed
         * and waits for its answer; false once neither is left, or the deadline has passed.
         */
        boolean flushing(long deadline) {
            boolean sendFirst;
            synchronized (this) {
                if (!inFlight && listed.isEmpty()) {
                    return false;
                }
                sendFirst = !inFlight;
            }
            if (sendFirst) {
                send(false);
            }
            CompletableFuture<Void> waited;
            synchronized (this) {
                waited = answered;
            }
            try {
                waited.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException | TimeoutException e) {
                return false;
            }
            return System.nanoTime() < deadline;
        }
    }

    /** This node's view of one key. Guarded by itself. */
    private final class View {
        private final ViewKey id;
        private final Lane lane;
        private long @Nullable [][] state;
        private long version;
        private long budget;
        /** Hits admitted here, not yet sent. */
        private final Hits pending = new Hits();
        /** Hits in the call in flight. */
        private final Hits inFlight = new Hits();
        /** Requests past the budget, in arrival order; the first rides the next call. */
        private @Nullable ArrayDeque<Waiter> waiters;
        /** In the call in flight of its lane. */
        private boolean sending;
        /** Listed for its lane's next call. */
        private boolean listed;
        /** When the view's counters are back to full capacity, in owner time. */
        private long idleAtOwnerNanos;

        View(ViewKey id, Lane lane) {
            this.id = id;
            this.lane = lane;
            this.budget = budgetOf(id.policy());
        }

        synchronized CompletableFuture<Decision> decide(long cost, long maxDelayNanos, long now) {
            Optional<Decision> local = waiters == null || waiters.isEmpty()
                    ? decideHere(cost, maxDelayNanos, now) : Optional.empty();
            if (local.isPresent()) {
                localDecisions.increment();
                return CompletableFuture.completedFuture(local.get());
            }
            ownerDecisions.increment();
            return waiting(new Waiter(cost, maxDelayNanos, false));
        }

        synchronized CompletableFuture<Decision> reserve(long cost, long maxWaitNanos) {
            ownerDecisions.increment();
            return waiting(new Waiter(cost, maxWaitNanos, true));
        }

        synchronized Decision peek(long cost, long now) {
            return id.policy().apply(state, lane.ownerNanos(now), cost, 0).decision();
        }

        /**
         * The decision here, when the view rejects the request or its budget holds it (a hit then); empty: it must
         * wait for the owner. Guarded.
         */
        private Optional<Decision> decideHere(long cost, long maxDelayNanos, long now) {
            long ownerNow = lane.ownerNanos(now);
            Transition decided = id.policy().apply(state, ownerNow, cost, maxDelayNanos);
            if (!decided.decision().allowed() || cost == 0) {
                return Optional.of(decided.decision());
            }
            long unacked = pending.permits() + inFlight.permits();
            if (unacked + cost > budget) {
                return Optional.empty();
            }
            if (decided.changed()) {
                state = decided.changedState();
            }
            idleAtOwnerNanos = ownerNow + decided.idleAfterNanos();
            pending.add(cost, now);
            listForHits();
            return Optional.of(decided.decision());
        }

        /** A request for the owner, queued; the view listed to carry it at once. Guarded. */
        private CompletableFuture<Decision> waiting(Waiter waiter) {
            if (waiters == null) {
                waiters = new ArrayDeque<>(2);
            }
            waiters.addLast(waiter);
            if (!sending) {
                list(true);
            }
            return waiter.answer;
        }

        synchronized Decision record(long cost, long ageNanos, long now) {
            long ownerNow = lane.ownerNanos(now);
            Transition counted = id.policy().record(state, ownerNow, cost, ageNanos);
            if (counted.changed()) {
                state = counted.changedState();
            }
            idleAtOwnerNanos = ownerNow + counted.idleAfterNanos();
            pending.add(cost, now - ageNanos);
            listForHits();
            return counted.decision();
        }

        /** Lists the view for its hits, at once when half its budget is used. Guarded. */
        private void listForHits() {
            if (!sending) {
                list(pending.permits() + inFlight.permits() >= Math.max(1, (budget + 1) / 2));
            }
        }

        /** Guarded. */
        private void list(boolean urgent) {
            if (!listed) {
                listed = true;
                lane.list(this, urgent);
            } else if (urgent) {
                synchronized (lane) {
                    lane.wantNow();
                }
            }
        }

        /** The view's part of its lane's next call: its hits, and the first request waiting; moved in flight. */
        synchronized Optional<Part> outgoing(long sentAt) {
            listed = false;
            Optional<Waiter> exact = Optional.empty();
            while (waiters != null && !waiters.isEmpty() && exact.isEmpty()) {
                Waiter first = waiters.pollFirst();
                if (first.claim()) {
                    exact = Optional.of(first);
                }
            }
            if (pending.isEmpty() && exact.isEmpty()) {
                return Optional.empty();
            }
            long[] costs = pending.costs();
            long[] ages = pending.ages(sentAt);
            inFlight.takeAll(pending);
            sending = true;
            return Optional.of(new Part(this, new SyncProcessor(id.policy(), exact.map(w -> w.cost).orElse(0L),
                    exact.map(w -> w.maxDelayNanos).orElse(0L), exact.map(w -> w.reserve).orElse(false), costs,
                    ages), exact));
        }

        /**
         * The owner counted this view's hits in flight and decided its request: adopts the answer when it is newer
         * than the view, counting again the hits admitted since the call left; then the requests waiting decide again.
         */
        synchronized void answered(Part part, SyncResult result, long answerVersion, long received,
                                   List<Completion> completions) {
            sending = false;
            inFlight.clear();
            if (result.overAdmitted() > 0) {
                overAdmitted.computeIfAbsent(scope(id.key()), scope -> new LongAdder()).add(result.overAdmitted());
            }
            if (answerVersion > version) {
                adopt(result.state(), answerVersion, received);
            }
            budget = budgetOf(id.policy());
            part.exact().ifPresent(waiter -> completions.add(new Completion(waiter, result.decision(), null)));
            decideWaiters(received, completions);
            if (waiters != null && !waiters.isEmpty()) {
                list(true);
            } else if (!pending.isEmpty()) {
                listForHits();
            }
        }

        /** The owner's counters as this view, with the hits not yet sent counted again on them. Guarded. */
        private void adopt(long[][] owners, long answerVersion, long received) {
            long ownerNow = lane.ownerNanos(received);
            long @Nullable [][] adopted = owners.length == 0 ? null : owners;
            for (int i = 0; i < pending.size(); i++) {
                Transition counted = id.policy().record(adopted, ownerNow, pending.cost(i),
                        Math.max(0, received - pending.localNanos(i)));
                if (counted.changed()) {
                    adopted = counted.changedState();
                }
            }
            state = adopted;
            version = answerVersion;
            idleAtOwnerNanos = ownerNow + id.policy().apply(adopted, ownerNow, 0, 0).idleAfterNanos();
        }

        /** The requests waiting, in order, decided here while the budget holds them. Guarded. */
        private void decideWaiters(long now, List<Completion> completions) {
            while (waiters != null && !waiters.isEmpty()) {
                Waiter first = waiters.peekFirst();
                if (first.reserve) {
                    return;
                }
                if (!first.claim()) {
                    waiters.pollFirst();
                    continue;
                }
                Optional<Decision> local = decideHere(first.cost, first.maxDelayNanos, now);
                if (local.isEmpty()) {
                    return;
                }
                waiters.pollFirst();
                localDecisions.increment();
                completions.add(new Completion(first, local.get(), null));
            }
        }

        /** The call failed: its hits wait again, first; the requests waiting fail (the failure policy decides). */
        synchronized void failed(Part part, Throwable cause, List<Completion> completions) {
            sending = false;
            pending.putBehind(inFlight);
            part.exact().ifPresent(waiter -> completions.add(new Completion(waiter, null, cause)));
            while (waiters != null && !waiters.isEmpty()) {
                Waiter waiter = waiters.pollFirst();
                if (waiter.claim()) {
                    completions.add(new Completion(waiter, null, cause));
                }
            }
            if (!pending.isEmpty()) {
                list(false);
            }
        }

        synchronized boolean forgettable(long now) {
            return !sending && !listed && pending.isEmpty() && (waiters == null || waiters.isEmpty())
                    && lane.ownerNanos(now) >= idleAtOwnerNanos;
        }

        synchronized long unacked() {
            return pending.permits() + inFlight.permits();
        }

        synchronized long lagNanos(long now) {
            long oldest = !inFlight.isEmpty() ? inFlight.localNanos(0)
                    : pending.isEmpty() ? now : pending.localNanos(0);
            return Math.max(0, now - oldest);
        }
    }

    /** The part of a counter key before its first {@code |}: what a rule set's key says of its rule, not of a client */
    static String scope(String key) {
        int bar = key.indexOf('|');
        return bar < 0 ? "(other)" : key.substring(0, bar);
    }
}
