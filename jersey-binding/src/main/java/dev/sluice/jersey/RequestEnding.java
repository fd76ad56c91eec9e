package dev.sluice.jersey;

import dev.sluice.engine.Evaluation;
import dev.sluice.engine.Reservation;
import dev.sluice.rules.ActualCost;
import dev.sluice.rules.match.RequestEnd;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.glassfish.jersey.server.ContainerRequest;
import org.glassfish.jersey.server.monitoring.ApplicationEvent;
import org.glassfish.jersey.server.monitoring.ApplicationEventListener;
import org.glassfish.jersey.server.monitoring.RequestEvent;
import org.glassfish.jersey.server.monitoring.RequestEventListener;
import org.jspecify.annotations.Nullable;

/**
 * Ends each request the binding evaluated when Jersey has finished it, however it finished (a response, an exception
 * mapped or not, for which response filters do not run, an asynchronous response resumed or timed out): releases its
 * concurrency permits and settles its reservations at the actual cost the response header ({@link
 * ResourceRateLimitFilter} captured it) or a request property says. What it ends is read while the request is alive
 * (once its filters ran, again once its response filters ran or it threw): by {@link RequestEvent.Type#FINISHED} a
 * servlet container may have recycled an asynchronous request, whose properties then cannot be read. Ending is
 * idempotent, so the servlet filter in front ending the same request again does nothing. Thread-safe: a listener of its
 * own per request.
 */
final class RequestEnding implements ApplicationEventListener {

    /**
     * The request property under which the binding's request filter leaves the evaluation it made, which this ends: not
     * the request's {@code dev.sluice.evaluation} alone, which a servlet filter in front may have set for a method the
     * binding does not filter, and ends itself (with the response header it captured, which Jersey never saw here).
     */
    static final String EVALUATED = "dev.sluice.jersey.evaluation";

    /** The request property under which the response filter leaves the actual-cost header fields it captured. */
    static final String CAPTURED = "dev.sluice.jersey.capturedCosts";

    /** What a captured header field's name is kept under, apart from the properties (no property name has it). */
    private static final String HEADER = "\u0000header:";

    @Override
    public void onEvent(ApplicationEvent event) {
        // Nothing to do for the application's events.
    }

    @Override
    public RequestEventListener onRequest(RequestEvent requestEvent) {
        return new Ending();
    }

    /**
     * One request's end: its evaluation, and what the request said of its costs, read while it was alive: the fields
     * captured from its response and the properties its rules read.
     */
    private static final class Ending implements RequestEventListener, RequestEnd {
        private volatile @Nullable Evaluation evaluation;
        private final Map<String, Object> said = new ConcurrentHashMap<>();

        @Override
        public void onEvent(RequestEvent event) {
            switch (event.getType()) {
                case REQUEST_FILTERED, RESP_FILTERS_FINISHED, ON_EXCEPTION -> read(event.getContainerRequest());
                case FINISHED -> {
                    Evaluation ended = evaluation;
                    if (ended != null) {
                        ended.end(this);
                    }
                }
                default -> {
                }
            }
        }

        private void read(ContainerRequest request) {
            if (!(request.getProperty(EVALUATED) instanceof Evaluation found)) {
                return;
            }
            evaluation = found;
            if (request.getProperty(CAPTURED) instanceof Map<?, ?> fields) {
                fields.forEach((name, value) -> said.put(HEADER + name, value));
            }
            for (Reservation reservation : found.reservations()) {
                ActualCost actual = reservation.outcome().rule().actualCost();
                if (actual.source() == ActualCost.Source.ATTRIBUTE) {
                    Object value = request.getProperty(actual.name());
                    if (value != null) {
                        said.put(actual.name(), value);
                    }
                }
            }
        }

        @Override
        public @Nullable String responseHeader(String name) {
            return said.get(HEADER + name.toLowerCase(Locale.ROOT)) instanceof String value ? value : null;
        }

        @Override
        public @Nullable Object attribute(String name) {
            return said.get(name);
        }
    }
}
