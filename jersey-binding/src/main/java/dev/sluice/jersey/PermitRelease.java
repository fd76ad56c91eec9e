package dev.sluice.jersey;

import dev.sluice.http.RateLimitResponse;
import dev.sluice.rules.Evaluation;
import org.glassfish.jersey.server.monitoring.ApplicationEvent;
import org.glassfish.jersey.server.monitoring.ApplicationEventListener;
import org.glassfish.jersey.server.monitoring.RequestEvent;
import org.glassfish.jersey.server.monitoring.RequestEventListener;

/**
 * Releases a request's concurrency permits when Jersey has finished it, however it finished: a response, an
 * exception mapped or not (response filters do not run for an exception no mapper takes), an asynchronous response
 * resumed or timed out. Releasing is idempotent, so the servlet filter in front releasing the same permits again
 * does nothing. One stateless listener serves every request. Thread-safe.
 */
final class PermitRelease implements ApplicationEventListener, RequestEventListener {

    @Override
    public void onEvent(ApplicationEvent event) {
        // Nothing to do for the application's events.
    }

    @Override
    public RequestEventListener onRequest(RequestEvent requestEvent) {
        return this;
    }

    /** On {@link RequestEvent.Type#FINISHED}, releases the permits of the request's evaluation. */
    @Override
    public void onEvent(RequestEvent event) {
        if (event.getType() == RequestEvent.Type.FINISHED
                && event.getContainerRequest().getProperty(RateLimitResponse.EVALUATION_ATTRIBUTE)
                        instanceof Evaluation evaluation) {
            evaluation.release();
        }
    }
}
