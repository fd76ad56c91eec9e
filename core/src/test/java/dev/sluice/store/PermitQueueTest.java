package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Waiting for concurrency permits (issue 26): first come first served per key on this node, a release handed to the
 * head waiter, a release elsewhere noticed by retrying, a wait that ends by the (manual) time source rejected holding
 * nothing, and a waiter that gives up leaving nothing behind. Over a real local store; the retry runs on a real
 * scheduler, so the tests wait for outcomes (boundedly), never for a time.
 */
class PermitQueueTest {

    private static final String KEY = "exports";
    private static final ConcurrencyLimit ONE = ConcurrencyLimit.of(1);
    private static final Duration WAIT = Duration.ofSeconds(2);

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 1_000, Runnable::run);
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final PermitQueue queue = new PermitQueue(time, scheduler, Duration.ofMillis(5));

    @AfterEach
    void close() {
        queue.close();
        scheduler.shutdownNow();
        store.close();
    }

    /** Waits, boundedly, for {@code condition}: the bound is a time-out of the test, not a claim on speed. */
    static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 30 s").isLessThan(deadline);
            Thread.sleep(2);
        }
    }

    private CompletableFuture<Counted> acquire(Duration wait) {
        return queue.acquire(store, KEY, ONE, wait, () -> { });
    }

    private static boolean granted(CompletableFuture<Counted> future) {
        return future.isDone() && future.join().decision().allowed();
    }

    @Test
    void acquire_permitFree_grantsAtOnceWithoutWaiting() {
        boolean[] waited = {false};

        CompletableFuture<Counted> permit = queue.acquire(store, KEY, ONE, WAIT, () -> waited[0] = true);

        assertThat(granted(permit)).isTrue();
        assertThat(waited[0]).isFalse();
        assertThat(store.permitsHeld()).isEqualTo(1);
        assertThat(permit.join().permit()).as("the store's permit id, which releases it from anywhere").isPresent();
    }

    @Test
    void acquire_overTheLimit_waitsAndGetsThePermitReleasedHere() throws InterruptedException {
        CompletableFuture<Counted> holder = acquire(WAIT);
        boolean[] waited = {false};
        CompletableFuture<Counted> waiter = queue.acquire(store, KEY, ONE, WAIT, () -> waited[0] = true);
        assertThat(waiter).isNotDone();
        assertThat(waited[0]).isTrue();
        assertThat(queue.waiting()).isEqualTo(1);

        holder.join().giveBack();

        await(() -> granted(waiter));
        assertThat(queue.waiting()).isZero();
        assertThat(store.permitsHeld()).isEqualTo(1);
        waiter.join().giveBack();
        assertThat(store.permitsHeld()).isZero();
    }

    @Test
    void acquire_severalWaiters_getPermitsInTheOrderTheyCame() throws InterruptedException {
        Counted holder = acquire(WAIT).join();
        List<CompletableFuture<Counted>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiters.add(acquire(WAIT));
        }
        List<Integer> order = new ArrayList<>();

        Counted releasing = holder;
        for (int turn = 0; turn < 5; turn++) {
            releasing.giveBack();
            await(() -> waiters.stream().filter(PermitQueueTest::granted).count() > order.size());
            for (int i = 0; i < waiters.size(); i++) {
                if (granted(waiters.get(i)) && !order.contains(i)) {
                    order.add(i);
                }
            }
            assertThat(store.permitsHeld()).isEqualTo(1);
            releasing = waiters.get(order.get(order.size() - 1)).join();
        }
        releasing.giveBack();

        assertThat(order).containsExactly(0, 1, 2, 3, 4);
        assertThat(store.permitsHeld()).isZero();
        assertThat(queue.waiting()).isZero();
    }

    @Test
    void acquire_permitReleasedElsewhere_isNoticedByRetryingAndGoesToTheFirstWaiterNotANewcomer()
            throws InterruptedException {
        Counted holder = store.executeAsync(KEY, Command.acquire(ONE)).toCompletableFuture().join();
        CompletableFuture<Counted> first = acquire(WAIT);

        holder.giveBack();  // as another node would: the queue is not told
        CompletableFuture<Counted> newcomer = acquire(WAIT);

        await(() -> granted(first));
        assertThat(newcomer).isNotDone();
        first.join().giveBack();
        await(() -> granted(newcomer));
        newcomer.join().giveBack();
        assertThat(store.permitsHeld()).isZero();
    }

    @Test
    void acquire_waitEnds_isRejectedHoldingNothing() throws InterruptedException {
        Counted holder = acquire(WAIT).join();
        CompletableFuture<Counted> waiter = acquire(WAIT);

        time.advance(WAIT);

        await(waiter::isDone);
        assertThat(waiter.join().decision().allowed()).isFalse();
        assertThat(queue.waiting()).isZero();
        holder.giveBack();
        assertThat(store.permitsHeld()).isZero();
    }

    @Test
    void acquire_noWaitBehindWaiters_isRejectedAtOnceWithoutOvertaking() {
        Counted holder = acquire(WAIT).join();
        CompletableFuture<Counted> waiter = acquire(WAIT);

        CompletableFuture<Counted> impatient = acquire(Duration.ZERO);

        assertThat(impatient.join().decision().allowed()).isFalse();
        assertThat(waiter).isNotDone();
        holder.giveBack();
    }

    @Test
    void acquire_waiterGivesUp_leavesTheQueueAndThePermitGoesToTheNext() throws InterruptedException {
        Counted holder = acquire(WAIT).join();
        CompletableFuture<Counted> leaving = acquire(WAIT);
        CompletableFuture<Counted> staying = acquire(WAIT);

        leaving.cancel(false);
        holder.giveBack();

        await(() -> granted(staying));
        assertThat(queue.waiting()).isZero();
        staying.join().giveBack();
        assertThat(store.permitsHeld()).isZero();
    }

    @Test
    void close_answersEveryWaiterWithARejection() {
        Counted holder = acquire(WAIT).join();
        CompletableFuture<Counted> waiter = acquire(WAIT);

        queue.close();

        assertThat(waiter.join().decision().allowed()).isFalse();
        assertThat(queue.waiting()).isZero();
        holder.giveBack();
    }
}
