package dev.sluice.service;

import dev.sluice.http.ProblemDetails;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

/**
 * The service's errors: RFC 9457 problem documents ({@value ProblemDetails#MEDIA_TYPE}) with a type, a title, the
 * status and a detail saying what was wrong and what was expected. Thrown as {@link WebApplicationException}s, whose
 * response Jersey sends as it is. Details never repeat a credential; they repeat a key only to the caller who sent it.
 */
final class Problems {

    static final String INVALID_REQUEST = "https://sluice.dev/problems/invalid-request";
    static final String UNKNOWN_LIMIT = "https://sluice.dev/problems/unknown-limit";
    static final String UNAUTHORIZED = "https://sluice.dev/problems/unauthorized";
    static final String FORBIDDEN = "https://sluice.dev/problems/forbidden";
    static final String NOT_SUPPORTED = "https://sluice.dev/problems/not-supported";

    /** The challenge of a 401 when a bearer token is configured. */
    static final String BEARER_CHALLENGE = "Bearer realm=\"sluice-limiter\"";

    private Problems() {
    }

    /** 400: a parameter (or body member) the service cannot take; nothing was counted. */
    static WebApplicationException invalid(String parameter, String detail) {
        return new WebApplicationException(response(400, INVALID_REQUEST, "Invalid Request",
                parameter + ": " + detail + ". Nothing was counted.", new JsonObject().put("parameter", parameter)));
    }

    /** 400 about the request as a whole, such as a key where the limit has none. */
    static WebApplicationException invalid(String detail) {
        return new WebApplicationException(response(400, INVALID_REQUEST, "Invalid Request",
                detail + " Nothing was counted.", new JsonObject()));
    }

    static WebApplicationException unknownLimit(String id) {
        return new WebApplicationException(response(404, UNKNOWN_LIMIT, "Unknown Limit",
                "No limit has the id '" + id + "'; GET the limits to see the ids.", new JsonObject().put("id", id)));
    }

    static WebApplicationException notSupported(String detail) {
        return new WebApplicationException(response(501, NOT_SUPPORTED, "Not Supported", detail, new JsonObject()));
    }

    /** 503: the store failed; the detail does not repeat the store's message, which may name a key. */
    static WebApplicationException unavailable() {
        return new WebApplicationException(response(ProblemDetails.SERVICE_UNAVAILABLE, ProblemDetails.UNAVAILABLE_TYPE,
                "Rate Limiter Unavailable", "The rate limiter's counter store failed to answer; nothing is known to "
                        + "have been counted. Retry later.", new JsonObject()));
    }

    /**
     * A problem document: {@code type}, {@code title}, {@code status}, {@code detail}, then {@code extra}'s members.
     */
    static Response response(int status, String type, String title, String detail, JsonObject extra) {
        String members = extra.toString();
        JsonObject problem = new JsonObject().put("type", type).put("title", title).put("status", status)
                .put("detail", detail);
        String body = members.length() > 2
                ? problem.toString().substring(0, problem.toString().length() - 1) + "," + members.substring(1)
                : problem.toString();
        return Response.status(status).type(ProblemDetails.MEDIA_TYPE).entity(body).build();
    }
}
