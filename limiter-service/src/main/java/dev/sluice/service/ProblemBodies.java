package dev.sluice.service;

import dev.sluice.http.ProblemDetails;
import dev.sluice.internal.json.JsonObject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.lang.annotation.Annotation;
import java.util.TreeSet;

/**
 * Gives a problem document to every error answer under the service's path that has none: Jersey's own 404 for a path
 * the service does not have, 405 for a method a path does not take (its {@code Allow} header kept) and 406 for an
 * {@code Accept} the service cannot answer, which the servlet container would otherwise send as its HTML error page.
 * Answers elsewhere in the application, and answers with a body, pass untouched. Stateless and thread-safe.
 */
final class ProblemBodies implements ContainerResponseFilter {

    private static final MediaType PROBLEM = MediaType.valueOf(ProblemDetails.MEDIA_TYPE);

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        int status = response.getStatus();
        if (status < 400 || response.hasEntity() || !underService(request.getUriInfo().getPath())) {
            return;
        }
        Response problem = switch (status) {
            case 404 -> Problems.notFound().getResponse();
            case 405 -> Problems.response(405, "about:blank", "Method Not Allowed", "This path does not take "
                    + request.getMethod() + "; it takes "
                    + String.join(", ", new TreeSet<>(response.getAllowedMethods())) + ".", new JsonObject());
            case 406 -> Problems.response(406, "about:blank", "Not Acceptable", "The service answers "
                    + MediaType.APPLICATION_JSON + " (errors " + ProblemDetails.MEDIA_TYPE + "), which the request's"
                    + " Accept header does not allow.", new JsonObject());
            default -> {
                String reason = response.getStatusInfo().getReasonPhrase();
                yield Problems.response(status, "about:blank", reason, reason + ".", new JsonObject());
            }
        };
        response.setEntity(problem.getEntity(), new Annotation[0], PROBLEM);
    }

    /** Whether {@code path}, relative to the application's base, is the service's ({@code limits} or under it). */
    private static boolean underService(String path) {
        String relative = path.startsWith("/") ? path.substring(1) : path;
        return relative.equals(LimitsResource.PATH) || relative.startsWith(LimitsResource.PATH + "/");
    }
}
