package dev.sluice.hazelcast.internal.calls;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.BatchRequest;
import dev.sluice.hazelcast.internal.wire.CallAnswer;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import org.jspecify.annotations.Nullable;

/**
 * Sends the decisions that wait on one lane (a key) as one call, while another call on that lane is in flight: no
 * timer, at most {@code maxCallsInFlight} calls per lane, at most {@code maxBatch} requests per call, in arrival order.
 * A request withdrawn ({@link CallAnswer#cancel}) before its batch is drawn is never sent; a failed call fails every
 * request it carried, none sent again. Thread-safe. Design: {@code docs/design/batching.md}.
 *
 * @param <L> what a lane is named by
 */
public final class Batcher<L> {

    /** One decision to make on {@code key}; {@code answer} completes with it. */
    public record Request(String key, Policy policy, long cost, long maxDelayNanos, CallAnswer<Decision> answer)
            implements BatchRequest {
    }

    /** Sends one call for {@code requests} on {@code lane}, completing each answer; returns when the call is done. */
    @FunctionalInterface
    interface Sender<L> {
        CompletableFuture<?> send(L lane, List<Request> requests);
    }

    /** A lane's calls in flight and the requests waiting for one to end. Guarded by the map's lock on the lane. */
    private static final class Lane {
        int callsInFlight = 1;
        /** Made when the first request waits: a lane with no contention never needs it. */
        @Nullable ArrayDeque<Request> waiting;
    }

    /**
     * Starts the calls that follow a completed one (and those of requests that waited for a slice in vain): a small
     * pool of daemon threads shared by every store, at least two even where the common pool has one (two CPUs or
     * fewer), so that a burst on one lane never waits behind another.
     */
    static final ForkJoinPool SENDERS = new ForkJoinPool(
            Math.max(2, Runtime.getRuntime().availableProcessors()), ForkJoinPool.defaultForkJoinWorkerThreadFactory,
            null, true);

    private final ConcurrentHashMap<L, Lane> lanes = new ConcurrentHashMap<>();
    private final Sender<L> sender;
    private final int maxBatch;
    private final int maxCallsInFlight;

    /**
     * @param maxBatch the most requests one call carries
     * @param maxCallsInFlight the most calls in flight on one lane: with two, one batch gathers while another is
     *     decided (with one, the owner idles while the answer travels back and the next batch forms)
     */
    Batcher(Sender<L> sender, int maxBatch, int maxCallsInFlight) {
        if (maxBatch < 1 || maxBatch > WireFormat.MAX_BATCH_REQUESTS) {
            throw new IllegalArgumentException("maxBatch must be from 1 to " + WireFormat.MAX_BATCH_REQUESTS
                    + ", got " + maxBatch);
        }
        if (maxCallsInFlight < 1) {
            throw new IllegalArgumentException("maxCallsInFlight must be at least 1, got " + maxCallsInFlight);
        }
        this.sender = sender;
        this.maxBatch = maxBatch;
        this.maxCallsInFlight = maxCallsInFlight;
    }

    /**
     * Decides on {@code key} in {@code laneName}: sent now while fewer than the most calls on the lane are in flight,
     * else with a next batch.
     */
    CallAnswer<Decision> submit(L laneName, String key, Policy policy, long cost, long maxDelayNanos) {
        Request request = new Request(key, policy, cost, maxDelayNanos, CallAnswer.waiting());
        boolean[] leads = new boolean[1];
        lanes.compute(laneName, (k, lane) -> {
            if (lane == null) {
                leads[0] = true;
                return new Lane();
            }
            if (lane.callsInFlight < maxCallsInFlight && (lane.waiting == null || lane.waiting.isEmpty())) {
                lane.callsInFlight++;
                leads[0] = true;
                return lane;
            }
            if (lane.waiting == null) {
                lane.waiting = new ArrayDeque<>();
            }
            lane.waiting.add(request);
            return lane;
        });
        if (leads[0]) {
            request.answer().send();
            send(laneName, List.of(request));
        }
        return request.answer();
    }

    /** Sends {@code batch}, then each next batch as its call completes, until none waits on {@code lane}. */
    private void send(L lane, List<Request> first) {
        List<Request> batch = first;
        while (!batch.isEmpty()) {
            CompletableFuture<?> call = start(lane, batch);
            if (!call.isDone()) {
                List<Request> sent = batch;
                // Answers are given on the thread that completes the call, at once; the next call starts on a pool
                // thread, as Hazelcast's response threads may not start remote calls.
                call.whenCompleteAsync((done, failure) -> {
                    failAll(sent, failure);
                    List<Request> next = nextBatch(lane);
                    if (!next.isEmpty()) {
                        SENDERS.execute(() -> send(lane, next));
                    }
                }, Runnable::run);
                return;
            }
            // Answered at once (a local member, or a call that could not start): go on here rather than nest.
            failAll(batch, call.handle((done, failure) -> failure).join());
            batch = nextBatch(lane);
        }
    }

    private CompletableFuture<?> start(L lane, List<Request> batch) {
        try {
            return sender.send(lane, batch);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Fails every request of a call that failed; each decides by its caller's failure policy. */
    private static void failAll(List<Request> batch, @Nullable Throwable failure) {
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            for (Request request : batch) {
                request.answer().completeExceptionally(cause);
            }
        }
    }

    /**
     * After a call on {@code laneName} ended: the requests that go next, in arrival order, in the call that takes its
     * place; none when none wait (and the lane is dropped once no call is in flight).
     */
    private List<Request> nextBatch(L laneName) {
        List<Request> next = new ArrayList<>(0);
        lanes.compute(laneName, (k, lane) -> {
            ArrayDeque<Request> waiting = lane.waiting;
            while (waiting != null && next.size() < maxBatch && !waiting.isEmpty()) {
                Request first = waiting.poll();
                if (first.answer().send()) {
                    next.add(first);
                }
            }
            if (next.isEmpty()) {
                lane.callsInFlight--;
            }
            return lane.callsInFlight == 0 ? null : lane;
        });
        return next;
    }
}
