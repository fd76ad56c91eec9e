package dev.sluice.store;

import dev.sluice.ConcurrencyLimit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads racing for the permits of one key: each takes a permit over and over, holds it a moment (counted as in
 * flight by the callers themselves) and gives it back.
 */
public final class PermitRace {

    /** What the callers counted: permits granted, and the most held at once. */
    public record Outcome(int granted, int mostInFlight) {
    }

    private PermitRace() {
    }

    /** Runs {@code threadsPerStore} threads on each of {@code stores}, {@code rounds} attempts each, from one start. */
    public static Outcome run(List<? extends CounterStore> stores, int threadsPerStore, int rounds, String key,
                              ConcurrencyLimit limit) throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        AtomicInteger granted = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(stores.size() * threadsPerStore);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < stores.size() * threadsPerStore; t++) {
                CounterStore store = stores.get(t % stores.size());
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        Counted held = store.executeAsync(key, Command.acquire(limit)).toCompletableFuture().join();
                        if (held.decision().allowed()) {
                            granted.incrementAndGet();
                            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                            Thread.yield();
                            inFlight.decrementAndGet();
                            held.giveBack().toCompletableFuture().join();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> each : done) {
                each.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        return new Outcome(granted.get(), mostInFlight.get());
    }
}
