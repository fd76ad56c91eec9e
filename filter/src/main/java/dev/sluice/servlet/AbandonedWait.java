package dev.sluice.servlet;

import dev.sluice.engine.Evaluation;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.util.concurrent.CompletableFuture;

/**
 * Cancels a request's wait for a permit when the request ends while it waits: completed, timed out or failed by
 * the container (a client that went away). Once the wait has ended, cancelling does nothing, and the request is
 * the {@link EndingListener}'s.
 */
record AbandonedWait(CompletableFuture<Evaluation> evaluating) implements AsyncListener {

    private void abandon() {
        evaluating.cancel(false);
    }

    @Override
    public void onComplete(AsyncEvent event) {
        abandon();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        abandon();
    }

    @Override
    public void onError(AsyncEvent event) {
        abandon();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
    }
}
