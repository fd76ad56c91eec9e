package dev.sluice.hazelcast.internal.sync;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.SyncProcessor;
import dev.sluice.hazelcast.internal.wire.SyncResult;
import dev.sluice.internal.Durations;
import dev.sluice.internal.state.Transition;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * This node's view of one synchronised key: the counters its owner last answered (at a version), with the hits
 * admitted here since, those not yet sent and those in the call in flight. Decides a request here when the view
 * rejects it or the key's budget holds it; queues it for the owner otherwise. Guarded by itself. Design:
 * {@code docs/design/synchronised.md}.
 */
final class View implements Lane.Rider {

    /** Budget exhaustions within {@link #HOT_SPAN_NANOS} that make a key hot (to be leased where it can be). */
    static final int HOT_EXHAUSTIONS = 3;
    static final long HOT_SPAN_NANOS = 1_000_000_000L;

    private final String key;
    private final Policy policy;
    private final Lane lane;
    private final SyncFigures figures;
    private final ToLongFunction<Policy> budgets;
    private long @Nullable [][] state;
    private long version;
    private long budget;
    /** Hits admitted here, not yet sent. */
    private final Hits pending = new Hits();
    /** Hits in the call in flight. */
    private final Hits inFlight = new Hits();
    /** Requests for the owner, in arrival order; the first rides the next call. */
    private @Nullable ArrayDeque<Waiter> waiters;
    /** The request riding the call in flight. */
    private Optional<Waiter> riding = Optional.empty();
    /** In the call in flight of its lane. */
    private boolean sending;
    /** Listed for its lane's next call. */
    private boolean listed;
    /** When the view's counters are back to full capacity, in owner time. */
    private long idleAtOwnerNanos;
    /** Budget exhaustions in the span that started at {@link #spanStart}. */
    private int exhaustions;
    private long spanStart;
    private boolean hot;
    /**
     * Requests on their way through leased slices, and slices being taken: while any, nothing is admitted from the
     * view without the owner, so that no slice is counted without this node's hits.
     */
    private int slicing;
    /**
     * The key's version on its owner once the slices this node took were counted: until the view is as new, it lacks
     * them, and nothing is admitted from it without the owner.
     */
    private long slicedVersion;

    /** @param budgets the budget of a policy on this node, now */
    View(String key, Policy policy, Lane lane, SyncFigures figures, ToLongFunction<Policy> budgets) {
        this.key = key;
        this.policy = policy;
        this.lane = lane;
        this.figures = figures;
        this.budgets = budgets;
        this.budget = budgets.applyAsLong(policy);
    }

    @Override
    public String key() {
        return key;
    }

    synchronized CompletableFuture<Decision> decide(long cost, long maxDelayNanos, long now) {
        Optional<Decision> local = waiters == null || waiters.isEmpty()
                ? decideHere(cost, maxDelayNanos, now) : Optional.empty();
        if (local.isPresent()) {
            figures.localDecisions.increment();
            return CompletableFuture.completedFuture(local.get());
        }
        exhausted(now);
        figures.ownerDecisions.increment();
        return waiting(new Waiter(cost, maxDelayNanos, false));
    }

    synchronized CompletableFuture<Decision> reserve(long cost, long maxWaitNanos) {
        figures.ownerDecisions.increment();
        return waiting(new Waiter(cost, maxWaitNanos, true));
    }

    synchronized Decision peek(long cost, long now) {
        return policy.apply(state, lane.ownerNanos(now), cost, 0).decision();
    }

    synchronized Decision record(long cost, long ageNanos, long now) {
        long ownerNow = lane.ownerNanos(now);
        Transition counted = policy.record(state, ownerNow, cost, ageNanos);
        if (counted.changed()) {
            state = counted.changedState();
        }
        idleAtOwnerNanos = Durations.saturatedAdd(ownerNow, counted.idleAfterNanos());
        pending.add(cost, now - ageNanos);
        listForHits();
        return counted.decision();
    }

    /**
     * Enters the leased slices when the key keeps exhausting its budget here ({@value #HOT_EXHAUSTIONS} times within
     * a second) and its owner has counted every hit admitted here; until the request {@linkplain #leftSlices leaves},
     * the view admits nothing without the owner, so no hit of this node is missing from a slice taken meanwhile.
     */
    synchronized boolean enterSlices() {
        if (hot && pending.isEmpty() && inFlight.isEmpty()) {
            slicing++;
            return true;
        }
        return false;
    }

    /**
     * A request that {@linkplain #enterSlices entered} the slices is decided; {@code cooled}: the owner gave no slice,
     * so the key is decided from this view again and must exhaust its budget anew.
     */
    synchronized void leftSlices(boolean cooled) {
        slicing--;
        if (cooled) {
            hot = false;
            exhaustions = 0;
        }
    }

    /** A slice of the key is being taken from its owner. */
    synchronized void taking() {
        slicing++;
    }

    /** The slice is taken, and counted on the owner at {@code version}; empty: the call failed. */
    synchronized void taken(OptionalLong version) {
        slicing--;
        slicedVersion = Math.max(slicedVersion, version.orElse(0));
    }

    private void exhausted(long now) {
        if (now - spanStart > HOT_SPAN_NANOS) {
            spanStart = now;
            exhaustions = 0;
        }
        hot = ++exhaustions >= HOT_EXHAUSTIONS;
    }

    /**
     * The decision here, when the view rejects the request or its budget holds it (a hit then); empty: it must wait
     * for the owner. Guarded.
     */
    private Optional<Decision> decideHere(long cost, long maxDelayNanos, long now) {
        long ownerNow = lane.ownerNanos(now);
        Transition decided = policy.apply(state, ownerNow, cost, maxDelayNanos);
        if (!decided.decision().allowed() || cost == 0) {
            return Optional.of(decided.decision());
        }
        if (pending.permits() + inFlight.permits() + cost > (alone() ? budget : 0)) {
            return Optional.empty();
        }
        if (decided.changed()) {
            state = decided.changedState();
        }
        idleAtOwnerNanos = Durations.saturatedAdd(ownerNow, decided.idleAfterNanos());
        pending.add(cost, now);
        listForHits();
        return Optional.of(decided.decision());
    }

    /**
     * Whether the view may admit without the owner: the key is not granted from slices here, none is being taken, the
     * view counts every slice taken, and no request rides a call (the owner may count it before the view does).
     * Guarded.
     */
    private boolean alone() {
        return !hot && slicing == 0 && version >= slicedVersion && riding.isEmpty();
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
            lane.wantNow();
        }
    }

    /** Its hits not yet sent and the first request waiting, moved in flight. */
    @Override
    public synchronized Optional<SyncProcessor> outgoing(long sentAt) {
        listed = false;
        riding = Optional.empty();
        while (waiters != null && !waiters.isEmpty() && riding.isEmpty()) {
            Waiter first = waiters.pollFirst();
            if (first.claim()) {
                riding = Optional.of(first);
            }
        }
        if (pending.isEmpty() && riding.isEmpty()) {
            return Optional.empty();
        }
        long[] costs = pending.costs();
        long[] ages = pending.ages(sentAt);
        inFlight.takeAll(pending);
        sending = true;
        return Optional.of(new SyncProcessor(policy, riding.map(w -> w.cost).orElse(0L),
                riding.map(w -> w.maxDelayNanos).orElse(0L), riding.map(w -> w.reserve).orElse(false), costs, ages));
    }

    /**
     * The owner counted this view's hits in flight and decided its request: adopts the answer when it is newer than
     * the view, counting again the hits admitted since the call left; then the requests waiting decide again.
     */
    @Override
    public synchronized void answered(SyncResult result, long answerVersion, long received,
                                      List<Runnable> completions) {
        sending = false;
        inFlight.clear();
        if (result.overAdmitted() > 0) {
            figures.overAdmitted(key, result.overAdmitted());
        }
        if (answerVersion > version) {
            adopt(result.state(), answerVersion, received);
        }
        budget = budgets.applyAsLong(policy);
        riding.ifPresent(waiter -> completions.add(waiter.decided(result.decision())));
        riding = Optional.empty();
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
            Transition counted = policy.record(adopted, ownerNow, pending.cost(i),
                    Math.max(0, received - pending.localNanos(i)));
            if (counted.changed()) {
                adopted = counted.changedState();
            }
        }
        state = adopted;
        version = answerVersion;
        idleAtOwnerNanos = Durations.saturatedAdd(ownerNow, policy.apply(adopted, ownerNow, 0, 0).idleAfterNanos());
    }

    /** The requests waiting, in order, decided here while the budget holds them. Guarded. */
    private void decideWaiters(long now, List<Runnable> completions) {
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
            figures.localDecisions.increment();
            completions.add(first.decided(local.get()));
        }
    }

    /** The call failed: its hits wait again, first; the requests waiting fail (the failure policy decides). */
    @Override
    public synchronized void failed(Throwable cause, List<Runnable> completions) {
        sending = false;
        pending.putBehind(inFlight);
        riding.ifPresent(waiter -> completions.add(waiter.failed(cause)));
        riding = Optional.empty();
        while (waiters != null && !waiters.isEmpty()) {
            Waiter waiter = waiters.pollFirst();
            if (waiter.claim()) {
                completions.add(waiter.failed(cause));
            }
        }
        if (!pending.isEmpty()) {
            list(false);
        }
    }

    /**
     * Whether the view can be forgotten: nothing waits, it counts every slice this node took, and its counters are
     * back to full capacity.
     */
    synchronized boolean forgettable(long now) {
        return !sending && !listed && pending.isEmpty() && (waiters == null || waiters.isEmpty())
                && slicing == 0 && version >= slicedVersion && lane.ownerNanos(now) >= idleAtOwnerNanos;
    }

    /** Permits admitted here that the owner has not counted yet. */
    synchronized long unacked() {
        return pending.permits() + inFlight.permits();
    }

    /** How long the oldest of them has waited. */
    synchronized long lagNanos(long now) {
        long oldest = !inFlight.isEmpty() ? inFlight.localNanos(0) : pending.isEmpty() ? now : pending.localNanos(0);
        return Math.max(0, now - oldest);
    }
}
