package dev.sluice.hazelcast.internal.sync;

import com.hazelcast.cluster.Member;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.SyncProcessor;
import dev.sluice.hazelcast.internal.wire.SyncResult;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * One node's side of the synchronised mode: per (key, policy) a view of the key's state as its owner last answered,
 * on the owner's clock, plus the hits admitted here since. A decision applies the policy to a fresh view (adopted
 * within two intervals) with no cluster call; a key with no fresh view is decided by one call on its owner that
 * answers the state too, which becomes the view. Every interval {@link #flush()} sends, per owning member, one message
 * with every key used since the last ({@link Owners#send}); the owner counts the hits and answers its state, which the
 * node adopts, re-counting the hits admitted after the message left. Hits of a failed message stay and are sent again.
 * Views unused for {@link #IDLE_INTERVALS} intervals are forgotten; at most {@code maxKeys} are kept (other keys are
 * decided on the owner). Times are nanoseconds on this node's {@link TimeSource} unless named owner times.
 *
 * <p>Thread-safe: a view changes under its own lock; one thread flushes at a time. Bounds and proofs:
 * {@code docs/design/synchronised.md}.
 */
public final class SyncedKeys implements AutoCloseable {

    /** The calls that reach the owners. */
    public interface Owners {

        /** Sends {@code processor} to {@code key}'s owner (one keyed call). */
        CompletableFuture<SyncResult> call(String key, SyncProcessor processor);

        /** {@code keys} grouped by the member that owns each now; a key whose owner is unknown now is left out. */
        Map<Member, List<String>> byOwner(List<String> keys);

        /** Sends the keys' processors, all owned by {@code owner}, in one message; one result per key, in order. */
        CompletableFuture<List<SyncResult>> send(Member owner, List<String> keys, List<SyncProcessor> processors);
    }

    /** How many intervals a view may go unused before it is forgotten. */
    static final int IDLE_INTERVALS = 50;
    /** A view older than this many intervals is not decided from: the key goes to its owner. */
    static final int FRESH_INTERVALS = 2;
    /** How long {@link #close()} and a flush wait for the owners' answers. */
    private static final long ANSWER_WAIT_SECONDS = 5;
    private static final System.Logger LOG = System.getLogger(SyncedKeys.class.getName());

    private final Owners owners;
    private final TimeSource time;
    private final long intervalNanos;
    private final int maxKeys;
    private final ConcurrentHashMap<ViewKey, View> views = new ConcurrentHashMap<>();
    /** The key's call on its owner in flight, which its other requests wait for. */
    private final ConcurrentHashMap<ViewKey, CompletableFuture<Void>> fetching = new ConcurrentHashMap<>();
    private final LongAdder localDecisions = new LongAdder();
    private final LongAdder messagesSent = new LongAdder();
    /** The longest a sync message took to be answered, in nanoseconds: the round trip {@code d} of the bound. */
    private final AtomicLong longestRoundTrip = new AtomicLong();
    /** Guards starting and stopping the flusher; not the flush's lock, which waits for answers. */
    private final Object flusherLock = new Object();
    private volatile @Nullable ScheduledExecutorService flusher;
    private boolean closed;

    /**
     * @param interval how often the hits go to the owners
     * @param maxKeys the most views kept at once
     */
    public SyncedKeys(Owners owners, TimeSource time, Duration interval, int maxKeys) {
        this.owners = owners;
        this.time = time;
        this.intervalNanos = interval.toNanos();
        this.maxKeys = maxKeys;
    }

    /** Starts a daemon thread that runs {@link #flush()} every interval, if none runs; {@link #close()} stops it. */
    public SyncedKeys flushing() {
        synchronized (flusherLock) {
            if (flusher != null || closed) {
                return this;
            }
            ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread flushing = new Thread(task, "sluice-sync-flusher");
                flushing.setDaemon(true);
                return flushing;
            });
            // A failure must not end the schedule: logged, and the hits are sent again next time.
            thread.scheduleWithFixedDelay(() -> {
                try {
                    flush();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "Sluice: synchronising keys failed; retried", e);
                }
            }, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
            flusher = thread;
            return this;
        }
    }

    /**
     * Decides a request of {@code cost} on {@code key}: from this node's fresh view with no call, else on the owner
     * (and the answer's state becomes the view). One such call per key is in flight at a time: a request that finds
     * one waits for it and then decides again, so that no view misses a grant its own node made on the owner.
     * Completes exceptionally when the owner's call fails.
     */
    public CompletableFuture<Decision> decide(String key, Policy policy, long cost) {
        ViewKey viewKey = new ViewKey(key, policy);
        View view = views.get(viewKey);
        if (view != null) {
            Optional<Decision> local = view.decideLocally(time.nanos(), cost);
            if (local.isPresent()) {
                localDecisions.increment();
                return CompletableFuture.completedFuture(local.get());
            }
        }
        if (view == null && views.size() >= maxKeys) {
            // no view will be kept: decided on the owner, with nothing to wait for
            return owners.call(key, new SyncProcessor(policy, cost, new long[0], new long[0]))
                    .thenApply(SyncResult::decision);
        }
        CompletableFuture<Void> fetched = new CompletableFuture<>();
        CompletableFuture<Void> inFlight = fetching.putIfAbsent(viewKey, fetched);
        if (inFlight != null) {
            return inFlight.handle((done, failure) -> decide(key, policy, cost)).thenCompose(decision -> decision);
        }
        CompletableFuture<SyncResult> call;
        try {
            call = owners.call(key, new SyncProcessor(policy, cost, new long[0], new long[0]));
        } catch (RuntimeException | Error e) {
            fetched(viewKey, fetched);
            throw e;
        }
        // However the call or the adoption ends, the requests waiting for it go on: one left waiting would wait
        // forever, and every later request on the key behind it.
        return call.whenComplete((answer, failure) -> {
            try {
                if (failure == null) {
                    adopt(viewKey, answer);
                }
            } finally {
                fetched(viewKey, fetched);
            }
        }).thenApply(SyncResult::decision);
    }

    /** Ends the owner call {@code fetched} of {@code viewKey}: the requests that waited for it decide again. */
    private void fetched(ViewKey viewKey, CompletableFuture<Void> fetched) {
        fetching.remove(viewKey, fetched);
        fetched.complete(null);
    }

    /** Makes {@code answer} the key's view (a new one while fewer than maxKeys are kept). */
    private void adopt(ViewKey viewKey, SyncResult answer) {
        View adopting = views.get(viewKey);
        if (adopting == null && views.size() < maxKeys) {
            adopting = views.computeIfAbsent(viewKey, View::new);
            if (flusher == null) {
                flushing();
            }
        }
        if (adopting != null) {
            adopting.adopt(answer, time.nanos(), false);
        }
    }

    /**
     * One synchronisation: per owning member, one message (of at most {@link WireFormat#MAX_BATCH_REQUESTS} keys)
     * with every view used since the last, its hits moved in flight; waits for the answers and adopts them. Views
     * idle for {@link #IDLE_INTERVALS} with no hits are forgotten.
     */
    public synchronized void flush() {
        long now = time.nanos();
        Map<String, List<Outgoing>> byKey = new HashMap<>();
        for (View view : views.values()) {
            Optional<Outgoing> outgoing = view.outgoing(now);
            if (outgoing.isPresent()) {
                byKey.computeIfAbsent(view.id.key(), key -> new ArrayList<>()).add(outgoing.get());
            } else if (view.forgettable(now)) {
                views.remove(view.id, view);
            }
        }
        if (byKey.isEmpty()) {
            return;
        }
        List<CompletableFuture<List<SyncResult>>> answers = new ArrayList<>();
        for (Map.Entry<Member, List<String>> member : owners.byOwner(List.copyOf(byKey.keySet())).entrySet()) {
            List<Outgoing> sending = new ArrayList<>();
            for (String key : member.getValue()) {
                sending.addAll(byKey.remove(key));
            }
            for (int from = 0; from < sending.size(); from += WireFormat.MAX_BATCH_REQUESTS) {
                answers.add(send(member.getKey(), sending.subList(from,
                        Math.min(sending.size(), from + WireFormat.MAX_BATCH_REQUESTS))));
            }
        }
        // Keys with no known owner now (a migration): their hits go back, for the next time.
        byKey.values().forEach(left -> left.forEach(outgoing -> outgoing.view.failed()));
        try {
            CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                    .get(ANSWER_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // a failed message's handler has put its hits back; one unanswered is failed here, below
        }
        // Hits of a message unanswered by now go back; should it still merge them, they count twice (never lost).
        answers.forEach(answer -> answer.completeExceptionally(new TimeoutException("no answer to a sync message")));
    }

    private CompletableFuture<List<SyncResult>> send(Member member, List<Outgoing> sending) {
        List<String> keys = new ArrayList<>(sending.size());
        List<SyncProcessor> processors = new ArrayList<>(sending.size());
        for (Outgoing outgoing : sending) {
            keys.add(outgoing.view.id.key());
            processors.add(outgoing.processor);
        }
        messagesSent.increment();
        long sent = time.nanos();
        CompletableFuture<List<SyncResult>> answer = owners.send(member, keys, processors);
        answer.whenComplete((results, failure) -> {
            long received = time.nanos();
            longestRoundTrip.accumulateAndGet(received - sent, Math::max);
            for (int i = 0; i < sending.size(); i++) {
                View view = sending.get(i).view;
                if (failure == null && results.size() == sending.size() && results.get(i).merged()) {
                    view.adopt(results.get(i), received, true);
                } else {
                    view.failed();
                }
            }
        });
        return answer;
    }

    /** Decisions made from views, with no call, since the start. */
    public long localDecisions() {
        return localDecisions.sum();
    }

    /** Synchronisation messages sent since the start. */
    public long messagesSent() {
        return messagesSent.sum();
    }

    /** The longest a sync message has taken to be answered (or to fail), in nanoseconds, since the start. */
    public long longestRoundTripNanos() {
        return longestRoundTrip.get();
    }

    /** Hits admitted here that no owner has counted yet (waiting or in flight). */
    public long hitsWaiting() {
        long waiting = 0;
        for (View view : views.values()) {
            waiting += view.waiting();
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

    /** Views kept now. */
    public int keys() {
        return views.size();
    }

    /** Stops the flusher and sends every waiting hit once more, waiting a few seconds at most for the answers. */
    @Override
    public void close() {
        stop();
        flush();
    }

    /** Stops the flusher, sending nothing more: for a node whose Hazelcast instance has already stopped. */
    public void stop() {
        synchronized (flusherLock) {
            closed = true;
            ScheduledExecutorService thread = flusher;
            if (thread != null) {
                thread.shutdown();
            }
        }
    }

    private record ViewKey(String key, Policy policy) {
    }

    /** A hit admitted from a view: its permits, when on the owner's clock, and when here. */
    private record Hit(long cost, long ownerNanos, long localNanos) {
    }

    /** A view's message part: its processor, with the hits it moved in flight. */
    private record Outgoing(View view, SyncProcessor processor) {
    }

    /** This node's view of one key. Guarded by itself. */
    private final class View {
        private final ViewKey id;
        private long @Nullable [][] state;
        /** The owner's clock minus this node's, as low as any answer said: never ahead of the owner's time. */
        private long offsetNanos = Long.MIN_VALUE;
        private long adoptedNanos = Long.MIN_VALUE;
        private long lastUsedNanos;
        private boolean usedSinceSync;
        private final ArrayDeque<Hit> pending = new ArrayDeque<>();
        private final List<Hit> inFlight = new ArrayList<>();

        View(ViewKey id) {
            this.id = id;
            this.lastUsedNanos = time.nanos();
        }

        /** The decision from this view, when it is fresh and can hold another hit; empty otherwise. */
        synchronized Optional<Decision> decideLocally(long now, long cost) {
            if (adoptedNanos == Long.MIN_VALUE || now - adoptedNanos > FRESH_INTERVALS * intervalNanos
                    || pending.size() + inFlight.size() >= WireFormat.MAX_BATCH_REQUESTS) {
                return Optional.empty();
            }
            long ownerNow = now + offsetNanos;
            Transition transition = id.policy().apply(state, ownerNow, cost, 0);
            if (transition.changed()) {
                state = transition.changedState();
            }
            Decision decision = transition.decision();
            if (decision.allowed() && cost > 0) {
                pending.addLast(new Hit(cost, ownerNow, now));
            }
            lastUsedNanos = now;
            usedSinceSync = true;
            return Optional.of(decision);
        }

        /** This view's part of a message, when used since the last and no message of it is in flight. */
        synchronized Optional<Outgoing> outgoing(long now) {
            if (!inFlight.isEmpty() || !usedSinceSync && pending.isEmpty()) {
                return Optional.empty();
            }
            int count = Math.min(pending.size(), WireFormat.MAX_BATCH_REQUESTS);
            long[] costs = new long[count];
            long[] instants = new long[count];
            for (int i = 0; i < count; i++) {
                Hit hit = pending.removeFirst();
                inFlight.add(hit);
                costs[i] = hit.cost();
                instants[i] = hit.ownerNanos();
            }
            usedSinceSync = false;
            return Optional.of(new Outgoing(this, new SyncProcessor(id.policy(), 0, costs, instants)));
        }

        /**
         * Takes the owner's state as this view, counting again the hits the owner has not: those waiting, and (for an
         * answer that is not to this view's own message) those in flight, which the owner may not have counted yet.
         */
        synchronized void adopt(SyncResult answer, long receivedNanos, boolean toOwnMessage) {
            if (toOwnMessage) {
                inFlight.clear();
            }
            offsetNanos = Math.max(offsetNanos, answer.ownerNanos() - receivedNanos);
            adoptedNanos = receivedNanos;
            long ownerNow = receivedNanos + offsetNanos;
            long @Nullable [][] adopted = answer.state().length == 0 ? null : answer.state();
            List<Hit> uncounted = new ArrayList<>(toOwnMessage ? List.of() : inFlight);
            uncounted.addAll(pending);
            for (Hit hit : uncounted) {
                Transition counted = id.policy().record(adopted, ownerNow, hit.cost(),
                        Math.max(0, ownerNow - hit.ownerNanos()));
                if (counted.changed()) {
                    adopted = counted.changedState();
                }
            }
            state = adopted;
        }

        /** The message with this view's hits failed: they wait again, first, for the next. */
        synchronized void failed() {
            for (int i = inFlight.size() - 1; i >= 0; i--) {
                pending.addFirst(inFlight.get(i));
            }
            inFlight.clear();
            usedSinceSync = true;
        }

        synchronized boolean forgettable(long now) {
            return pending.isEmpty() && inFlight.isEmpty() && now - lastUsedNanos > IDLE_INTERVALS * intervalNanos;
        }

        synchronized long waiting() {
            long hits = 0;
            for (Hit hit : pending) {
                hits += hit.cost();
            }
            for (Hit hit : inFlight) {
                hits += hit.cost();
            }
            return hits;
        }

        synchronized long lagNanos(long now) {
            long oldest = !inFlight.isEmpty() ? inFlight.get(0).localNanos()
                    : pending.isEmpty() ? now : pending.getFirst().localNanos();
            return Math.max(0, now - oldest);
        }
    }
}
