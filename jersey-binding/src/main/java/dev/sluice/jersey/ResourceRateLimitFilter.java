package dev.sluice.jersey;

import dev.sluice.engine.Evaluation;
import dev.sluice.engine.Reservation;
import dev.sluice.http.ProblemDetails;
import dev.sluice.http.RateLimitResponse;
import dev.sluice.rules.ActualCost;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The rate-limit filter of one resource method. Evaluates the rules once per request, skipping those an adapter in
 * front (the servlet filter) already counted, and leaves the combined evaluation in the request property
 * {@link RateLimitResponse#EVALUATION_ATTRIBUTE}; aborts a rejected request with the problem document; writes the
 * header fields on the response (rejections included: Jersey runs response filters on aborted requests), taking from it
 * the header fields its reservations read their actual cost from (stripped unless kept). A request over a concurrency
 * limit whose rule waits blocks this thread up to the wait. A request whose estimate a rule refuses gets a 400. A
 * store that fails lets the request through, logged. Thread-safe: one instance serves all requests to its method.
 */
final class ResourceRateLimitFilter implements ContainerRequestFilter, ContainerResponseFilter {

    private static final System.Logger LOG = System.getLogger(ResourceRateLimitFilter.class.getName());

    private final Limiting limiting;
    private final Method resourceMethod;

    ResourceRateLimitFilter(Limiting limiting, Method resourceMethod) {
        this.limiting = limiting;
        this.resourceMethod = resourceMethod;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        Object earlier = request.getProperty(RateLimitResponse.EVALUATION_ATTRIBUTE);
        @Nullable Evaluation counted = earlier instanceof Evaluation evaluated ? evaluated : null;
        Evaluation evaluation;
        CompletableFuture<Evaluation> evaluating = null;
        try {
            JerseyRequestView view = new JerseyRequestView(request, resourceMethod);
            evaluating = limiting.rules().evaluate(view, limiting.store(), counted, limiting.permits());
            // Complete unless a rule makes the request wait for a permit: then this thread waits, up to that wait.
            evaluation = evaluating.get();
        } catch (InterruptedException e) {
            // The container is stopping the request: it leaves the queue, taking nothing.
            evaluating.cancel(false);
            Thread.currentThread().interrupt();
            letThrough(request, e);
            return;
        } catch (ExecutionException | RuntimeException e) {
            letThrough(request, e instanceof ExecutionException failed && failed.getCause() != null ? failed.getCause()
                    : e);
            return;
        }
        request.setProperty(RateLimitResponse.EVALUATION_ATTRIBUTE, evaluation);
        request.setProperty(RequestEnding.EVALUATED, evaluation);
        RateLimitResponse answer = RateLimitResponse.of(evaluation).orElse(null);
        if (answer != null && answer.rejected()) {
            ProblemDetails problem = answer.problem();
            request.abortWith(Response.status(problem.status()).type(ProblemDetails.MEDIA_TYPE)
                    .entity(problem.toJson()).build());
        }
    }

    private void letThrough(ContainerRequestContext request, Throwable failure) {
        // The resource method, not the request URI: its path and query (and so path or query keys) are client data.
        LOG.log(System.Logger.Level.WARNING, "Sluice could not evaluate a " + request.getMethod() + " request to "
                + resourceMethod.getDeclaringClass().getName() + "#" + resourceMethod.getName()
                + "; letting it through", failure);
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getProperty(RateLimitResponse.EVALUATION_ATTRIBUTE) instanceof Evaluation evaluation) {
            captureCosts(evaluation, request, response);
            RateLimitResponse answer = RateLimitResponse.of(evaluation).orElse(null);
            if (answer != null) {
                answer.writeHeaders(limiting.headerStyle(), response.getHeaders()::putSingle);
            }
        }
    }

    /**
     * Keeps the response header fields the request's reservations read their actual cost from in the request property
     * {@link RequestEnding#CAPTURED}, where its end finds them, and removes each from the response unless every rule
     * reading it keeps it.
     */
    private static void captureCosts(Evaluation evaluation, ContainerRequestContext request,
                                     ContainerResponseContext response) {
        Map<String, String> captured = new HashMap<>();
        Set<String> stripped = new HashSet<>();
        for (Reservation reservation : evaluation.reservations()) {
            ActualCost actual = reservation.outcome().rule().actualCost();
            actual.capturedHeader().ifPresent(name -> {
                String field = name.toLowerCase(Locale.ROOT);
                Object value = response.getHeaders().getFirst(name);
                if (value != null) {
                    captured.put(field, String.valueOf(value));
                }
                if (!actual.keepsHeader()) {
                    stripped.add(name);
                }
            });
        }
        if (!captured.isEmpty()) {
            request.setProperty(RequestEnding.CAPTURED, captured);
        }
        for (String name : stripped) {
            response.getHeaders().remove(name);
        }
    }
}
