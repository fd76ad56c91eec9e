package dev.sluice.servlet;

import dev.sluice.engine.Evaluation;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Ends an asynchronous request when it completes, times out or fails (a client that went away included): releases
 * its concurrency permits and settles its reservations at the actual cost its response or attributes say; and
 * follows it into a later {@code startAsync}. Ending is idempotent, so a timeout followed by its completion ends it
 * once.
 */
record EndingListener(Evaluation evaluation, HttpServletRequest request, HttpServletResponse response)
        implements AsyncListener {

    private void end() {
        evaluation.end(CostCapture.ended(request, response));
    }

    @Override
    public void onComplete(AsyncEvent event) {
        end();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        end();
    }

    @Override
    public void onError(AsyncEvent event) {
        end();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        AsyncContext again = event.getAsyncContext();
        if (again != null) {
            again.addListener(this);
        }
    }
}
