package dev.sluice.hazelcast.internal.sync;

import dev.sluice.TimeSource;
import dev.sluice.hazelcast.internal.wire.ShardAnswer;
import dev.sluice.hazelcast.internal.wire.SyncProcessor;
import dev.sluice.hazelcast.internal.wire.SyncResult;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One shard's calls from this node: at most one in flight, carrying the hits and requests of every key of the shard
 * listed since the last (each key once), so that a key is in at most one call at a time; the keys listed meanwhile
 * wait for the next.
 * A send happens every interval ({@link #send}), or as soon as the call in flight answers when a key asks for it
 * ({@link #list} urgent). Keeps this node's estimate of the shard owner's clock. Thread-safe: guarded by itself; the
 * riders' locks are never taken under it.
 */
final class Lane {

    /** A key's part in its lane's calls: its view. */
    interface Rider {

        String key();

        /** Its part of the call leaving at local time {@code sentAt}, moved in flight; empty: nothing to send. */
        Optional<SyncProcessor> outgoing(long sentAt);

        /** The owner answered its part at {@code version}; what to run once no lock is held goes in completions. */
        void answered(SyncResult result, long version, long received, List<Runnable> completions);

        /** The call failed; what to run once no lock is held goes in completions. */
        void failed(Throwable cause, List<Runnable> completions);
    }

    private final int shard;
    private final Owners owners;
    private final TimeSource time;
    private final SyncFigures figures;
    private final Executor sender;
    /** The owner's clock minus this node's, as low as any answer said: never ahead of the owner's time. */
    private volatile long offsetNanos = Long.MIN_VALUE;
    private List<Rider> listed = new ArrayList<>();
    private boolean inFlight;
    /** A send is wanted as soon as the call in flight answers. */
    private boolean urgent;
    /** A send is queued on the sending thread. */
    private boolean queued;
    /** Completes when the call in flight answers; for {@link #flushing}. */
    private CompletableFuture<Void> answered = CompletableFuture.completedFuture(null);

    /** @param sender runs the sends asked for at once (never a thread of Hazelcast's, which may not call it) */
    Lane(int shard, Owners owners, TimeSource time, SyncFigures figures, Executor sender) {
        this.shard = shard;
        this.owners = owners;
        this.time = time;
        this.figures = figures;
        this.sender = sender;
    }

    /** This node's estimate of the owner's time at local time {@code now}. */
    long ownerNanos(long now) {
        long offset = offsetNanos;
        return offset == Long.MIN_VALUE ? now : now + offset;
    }

    /** Lists {@code rider} (once until it is sent) for the next call; {@code urgent}: as soon as possible. */
    synchronized void list(Rider rider, boolean urgent) {
        listed.add(rider);
        if (urgent) {
            wantNow();
        }
    }

    /** Asks for a send as soon as the call in flight (if any) answers. */
    synchronized void wantNow() {
        urgent = true;
        if (!inFlight && !queued) {
            queued = true;
            sender.execute(() -> send(true));
        }
    }

    /** Sends the listed riders' parts, unless a call is in flight; {@code queuedSend}: the send queued. */
    void send(boolean queuedSend) {
        List<Rider> sending;
        synchronized (this) {
            if (queuedSend) {
                queued = false;
            }
            if (inFlight || listed.isEmpty()) {
                return;
            }
            sending = new ArrayList<>(Math.min(listed.size(), WireFormat.MAX_BATCH_REQUESTS));
            List<Rider> waiting = new ArrayList<>();
            Set<String> distinct = new HashSet<>();
            for (Rider rider : listed) {
                // A call carries each key once: a second view of a key (one forgotten as a request took it, and
                // the view made after) rides the next call.
                if (sending.size() < WireFormat.MAX_BATCH_REQUESTS && distinct.add(rider.key())) {
                    sending.add(rider);
                } else {
                    waiting.add(rider);
                }
            }
            listed = waiting;
            inFlight = true;
            urgent = !listed.isEmpty();
            answered = new CompletableFuture<>();
        }
        long sentAt = time.nanos();
        List<Rider> riding = new ArrayList<>(sending.size());
        List<String> keys = new ArrayList<>(sending.size());
        List<SyncProcessor> processors = new ArrayList<>(sending.size());
        for (Rider rider : sending) {
            rider.outgoing(sentAt).ifPresent(processor -> {
                riding.add(rider);
                keys.add(rider.key());
                processors.add(processor);
            });
        }
        if (riding.isEmpty()) {
            ended(List.of());
            return;
        }
        figures.callsSent.increment();
        CompletableFuture<ShardAnswer> call;
        try {
            call = owners.call(shard, keys, processors);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((answer, failure) -> answered(riding, sentAt, answer, failure));
    }

    private void answered(List<Rider> riding, long sentAt, @Nullable ShardAnswer answer,
                          @Nullable Throwable failure) {
        long received = time.nanos();
        List<Runnable> completions = new ArrayList<>();
        if (answer != null && answer.size() == riding.size()) {
            figures.answered(received - sentAt, answer.nodes());
            offsetNanos = Math.max(offsetNanos, answer.ownerNanos() - received);
            for (int i = 0; i < riding.size(); i++) {
                riding.get(i).answered(answer.result(i, SyncResult.class), answer.version(i), received, completions);
            }
        } else {
            Throwable cause = failure != null ? failure : new IllegalStateException("a shard call answered "
                    + (answer == null ? "nothing" : answer.size() + " keys") + " of " + riding.size());
            figures.failed(received - sentAt, cause);
            riding.forEach(rider -> rider.failed(cause, completions));
        }
        ended(completions);
    }

    /** The call in flight ended: the next may go, and the requests it decided go on. */
    private void ended(List<Runnable> completions) {
        CompletableFuture<Void> done;
        synchronized (this) {
            inFlight = false;
            done = answered;
            if (urgent && !listed.isEmpty() && !queued) {
                queued = true;
                sender.execute(() -> send(true));
            }
        }
        done.complete(null);
        completions.forEach(Runnable::run);
    }

    /**
     * One step of a flush: waits (until {@code deadline} at most) for the call in flight, or sends what is listed and
     * waits for its answer; false once neither is left, or the deadline has passed.
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
