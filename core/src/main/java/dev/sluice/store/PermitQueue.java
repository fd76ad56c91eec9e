package dev.sluice.store;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.TimeSource;
import dev.sluice.internal.Durations;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * This node's requests waiting for concurrency permits, first come first served per key, above any
 * {@link CounterStore}: an arrival takes a permit ({@link Command.Acquire}) only when no earlier waiter of
 * its key is queued here; a permit taken through the queue, when released, is offered to the key's head waiter; every
 * {@code retry} (of real time) while any key is queued, each queued key's head tries again, which notices permits
 * released on other nodes, and waiters whose wait has ended by the {@link TimeSource} are answered with the key's
 * latest rejection. A waiter whose future is cancelled leaves the queue, and a permit that reaches it then is
 * released. Thread-safe; each key's queue changes atomically. See {@code docs/design/concurrency.md}.
 */
public final class PermitQueue implements AutoCloseable {

    /** How often queued keys try again by default: 50 ms. */
    public static final Duration DEFAULT_RETRY = Duration.ofMillis(50);

    private final TimeSource time;
    private final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final ScheduledExecutorService scheduler;
    private final long retryNanos;
    /** Whether a retry is scheduled: only while keys are queued, so an idle queue costs nothing. */
    private final AtomicBoolean retryScheduled = new AtomicBoolean();
    private volatile boolean closed;

    /**
     * A queue whose waits end by {@code time}, retrying every {@code retry} on {@code scheduler} while requests wait
     * (the queue uses the scheduler, and never shuts it down).
     */
    public PermitQueue(TimeSource time, ScheduledExecutorService scheduler, Duration retry) {
        this.time = Objects.requireNonNull(time, "time");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.retryNanos = retry.toNanos();
        if (retryNanos <= 0) {
            throw new IllegalArgumentException("retry must be positive, got " + retry);
        }
    }

    /**
     * Takes a permit of {@code limit} for {@code key} in {@code store}, now if no waiter of the key is queued here and
     * one is free, else after this node's earlier waiters, waiting at most {@code wait}. Completes with the granted
     * permit, whose {@link Counted#giveBack()} releases it and offers it to the key's next waiter; or, when the wait
     * ends first, with the latest rejection (nothing held); or exceptionally with the store's failure. Cancelling the
     * future leaves the queue. {@code onWaiting} runs once if the request queues.
     */
    public CompletableFuture<Counted> acquire(CounterStore store, String key, ConcurrencyLimit limit, Duration wait,
                                              Runnable onWaiting) {
        Waiter waiter = new Waiter(store, limit, Durations.saturatedAdd(time.nanos(), wait.toNanos()));
        waiter.future.whenComplete((counted, failure) -> {
            if (waiter.future.isCancelled()) {
                leave(key, waiter);
            }
        });
        boolean[] queued = {false};
        AtomicReference<@Nullable Counted> behindWaiters = new AtomicReference<>();
        // Most keys have no line: a plain read then spares the locking compute (a line made after it is the same race
        // as one made just after the compute).
        if (lines.get(key) != null) {
            lines.compute(key, (k, line) -> {
                if (line == null || line.waiters.isEmpty()) {
                    return line;
                }
                if (wait.isZero()) {
                    behindWaiters.set(line.lastRejection);
                } else {
                    enqueue(line, waiter);
                    queued[0] = true;
                }
                return line;
            });
        }
        Counted rejection = behindWaiters.get();
        if (rejection != null) {
            // Earlier requests wait for this key here, and this one would not: rejected without overtaking them.
            waiter.future.complete(rejection);
            return waiter.future;
        }
        if (queued[0]) {
            onWaiting.run();
            scheduleRetry();
            return waiter.future;
        }
        store.executeAsync(key, Command.acquire(limit)).whenComplete((counted, failure) -> {
            if (failure != null) {
                waiter.future.completeExceptionally(failure);
            } else if (counted.decision().allowed()) {
                grant(key, waiter, counted);
            } else if (wait.isZero()) {
                waiter.future.complete(counted);
            } else {
                lines.compute(key, (k, line) -> enqueue(line == null ? new Line(counted) : line, waiter));
                onWaiting.run();
                scheduleRetry();
            }
        });
        return waiter.future;
    }

    /** The requests waiting now, over every key. */
    public int waiting() {
        return waiting.get();
    }

    /**
     * Answers every waiter with its key's latest rejection, so that no request is left waiting for a queue that is
     * gone, and stops retrying. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        for (String key : lines.keySet()) {
            List<Waiter> answered = new ArrayList<>();
            AtomicReference<@Nullable Counted> rejection = new AtomicReference<>();
            lines.computeIfPresent(key, (k, line) -> {
                answered.addAll(line.waiters);
                rejection.set(line.lastRejection);
                waiting.addAndGet(-line.waiters.size());
                line.waiters.clear();
                return null;
            });
            answered.forEach(waiter -> waiter.future.complete(Objects.requireNonNull(rejection.get())));
        }
    }

    private void scheduleRetry() {
        if (!closed && retryScheduled.compareAndSet(false, true)) {
            try {
                scheduler.schedule(this::retry, retryNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException stopped) {
                // The scheduler's owner is stopping, and closes this queue, which answers every waiter.
                retryScheduled.set(false);
            }
        }
    }

    private Line enqueue(Line line, Waiter waiter) {
        line.waiters.add(waiter);
        waiting.incrementAndGet();
        return line;
    }

    private void leave(String key, Waiter waiter) {
        lines.computeIfPresent(key, (k, line) -> {
            if (line.waiters.remove(waiter)) {
                waiting.decrementAndGet();
            }
            return line.idle() ? null : line;
        });
    }

    /** Hands a granted permit to {@code waiter}; released at once (and offered on) when the waiter is gone. */
    private void grant(String key, Waiter waiter, Counted counted) {
        Counted offered = offeringOnRelease(key, counted);
        if (!waiter.future.complete(offered)) {
            offered.giveBack();
        }
    }

    /** {@code counted} (its permit id kept), whose release also offers the next permit to the key's head waiter. */
    private Counted offeringOnRelease(String key, Counted counted) {
        return counted.guarded(released -> {
            released.whenComplete((after, failure) -> offer(key));
            return released;
        });
    }

    /** Lets the key's head waiter try for a permit, unless it is trying already (then it tries again after). */
    private void offer(String key) {
        AtomicReference<@Nullable Waiter> trying = new AtomicReference<>();
        lines.computeIfPresent(key, (k, line) -> {
            while (!line.waiters.isEmpty() && line.waiters.peek().future.isDone()) {
                line.waiters.poll();
                waiting.decrementAndGet();
            }
            if (line.trying) {
                line.again = true;
            } else if (!line.waiters.isEmpty()) {
                line.trying = true;
                trying.set(line.waiters.peek());
            }
            return line.idle() ? null : line;
        });
        Waiter head = trying.get();
        if (head != null) {
            head.store.executeAsync(key, Command.acquire(head.limit)).whenComplete((counted, failure) -> settle(key,
                    head, counted,
                    failure));
        }
    }

    private void settle(String key, Waiter head, @Nullable Counted counted, @Nullable Throwable failure) {
        boolean granted = failure == null && counted != null && counted.decision().allowed();
        boolean[] again = {false};
        lines.computeIfPresent(key, (k, line) -> {
            line.trying = false;
            if (counted != null && !granted) {
                line.lastRejection = counted;
            }
            again[0] = line.again;
            line.again = false;
            if ((granted || failure != null) && line.waiters.remove(head)) {
                waiting.decrementAndGet();
            }
            return line.idle() ? null : line;
        });
        if (failure != null) {
            head.future.completeExceptionally(failure);
        } else if (granted) {
            grant(key, head, Objects.requireNonNull(counted));
        }
        if (granted || failure != null || again[0]) {
            // Another permit may be free (several releases, a waiter that left): the next head tries at once.
            offer(key);
        }
    }

    /** Answers the waiters whose wait has ended, then lets each queued key's head try again. */
    private void retry() {
        try {
            long now = time.nanos();
            for (String key : lines.keySet()) {
                List<Waiter> ended = new ArrayList<>();
                AtomicReference<@Nullable Counted> rejection = new AtomicReference<>();
                lines.computeIfPresent(key, (k, line) -> {
                    rejection.set(line.lastRejection);
                    for (Iterator<Waiter> it = line.waiters.iterator(); it.hasNext(); ) {
                        Waiter waiter = it.next();
                        if (waiter.future.isDone() || waiter.deadline - now <= 0) {
                            it.remove();
                            waiting.decrementAndGet();
                            ended.add(waiter);
                        }
                    }
                    return line.idle() ? null : line;
                });
                // Waited for in vain: answered with the key's latest rejection, holding nothing.
                ended.forEach(waiter -> waiter.future.complete(Objects.requireNonNull(rejection.get())));
                offer(key);
            }
        } catch (RuntimeException e) {
            // A failed round must not end the retries: the next one tries again.
            System.getLogger(PermitQueue.class.getName()).log(System.Logger.Level.WARNING,
                    "Sluice could not retry the requests waiting for permits", e);
        } finally {
            retryScheduled.set(false);
            if (!lines.isEmpty()) {
                scheduleRetry();
            }
        }
    }

    @Override
    public String toString() {
        return "PermitQueue[" + waiting.get() + " waiting on " + lines.size() + " keys]";
    }

    /**
     * One key's waiters, oldest first, whether its head is trying now, and the key's latest rejection (what a waiter
     * whose wait ends is answered); changed only inside the map's compute.
     */
    private static final class Line {
        final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
        Counted lastRejection;
        boolean trying;
        boolean again;

        Line(Counted rejection) {
            this.lastRejection = rejection;
        }

        boolean idle() {
            return waiters.isEmpty() && !trying;
        }
    }

    /** A request waiting for a permit until {@code deadline} (the time source's nanoseconds). */
    private static final class Waiter {
        final CounterStore store;
        final ConcurrencyLimit limit;
        final long deadline;
        final CompletableFuture<Counted> future = new CompletableFuture<>();

        Waiter(CounterStore store, ConcurrencyLimit limit, long deadline) {
            this.store = store;
            this.limit = limit;
            this.deadline = deadline;
        }
    }
}
