package dev.sluice.hazelcast.internal.sync;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.CallAnswer;

/**
 * A request a view could not decide: past its key's budget, or a reservation. It waits for the key's owner, and can be
 * withdrawn by cancelling its answer until it is claimed (to be decided here or sent). Guarded by its view.
 */
final class Waiter {
    final CallAnswer<Decision> answer = CallAnswer.waiting();
    final long cost;
    final long maxDelayNanos;
    /** A reservation of the earliest slot ({@link Policy#reserve}): decided on the owner only. */
    final boolean reserve;
    private boolean claimed;

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

    /** What completes the request with {@code decision}, to run once no lock is held. */
    Runnable decided(Decision decision) {
        return () -> answer.complete(decision);
    }

    /** What fails the request with {@code cause}, to run once no lock is held. */
    Runnable failed(Throwable cause) {
        return () -> answer.completeExceptionally(cause);
    }
}
