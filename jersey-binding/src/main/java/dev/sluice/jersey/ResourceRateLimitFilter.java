package dev.sluice.jersey;

import dev.sluice.http.ProblemDetails;
import dev.sluice.http.RateLimitResponse;
import dev.sluice.rules.Evaluation;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * The rate-limit filter of one resource method. Evaluates the rules once per request, skipping those an adapter in
 * front (the servlet filter) already counted, and leaves the combined evaluation in the request property
 * {@link RateLimitResponse#EVALUATION_ATTRIBUTE}; aborts a rejected request with the problem document; writes the
 * header fields on the response (rejections included: Jersey runs response filters on aborted requests). A store that
 * fails lets the request through, logged. Thread-safe: one instance serves all requests to its method.
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
        try {
            JerseyRequestView view = new JerseyRequestView(request, resourceMethod);
            evaluation = limiting.rules().evaluate(view, limiting.store(), counted);
        } catch (RuntimeException e) {
            // The resource method, not the request URI: its path and query (and so path or query keys) are client data.
            LOG.log(System.Logger.Level.WARNING, "Sluice could not evaluate a " + request.getMethod() + " request to "
                    + resourceMethod.getDeclaringClass().getName() + "#" + resourceMethod.getName()
                    + "; letting it through", e);
            return;
        }
        request.setProperty(RateLimitResponse.EVALUATION_ATTRIBUTE, evaluation);
        RateLimitResponse answer = RateLimitResponse.of(evaluation).orElse(null);
        if (answer != null && answer.rejected()) {
            ProblemDetails problem = answer.problem();
            request.abortWith(Response.status(problem.status()).type(ProblemDetails.MEDIA_TYPE)
                    .entity(problem.toJson()).build());
        }
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getProperty(RateLimitResponse.EVALUATION_ATTRIBUTE) instanceof Evaluation evaluation) {
            RateLimitResponse answer = RateLimitResponse.of(evaluation).orElse(null);
            if (answer != null) {
                answer.writeHeaders(limiting.headerStyle(), response.getHeaders()::putSingle);
            }
        }
    }
}
