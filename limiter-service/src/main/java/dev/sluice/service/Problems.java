package dev.sluice.service;

import dev.sluice.http.ProblemDetails;
import dev.sluice.internal.json.JsonObject;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

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
    static final String CROSS_SITE = "https://sluice.dev/problems/cross-site-request";

    /** The challenge of a 401 when a bearer token is configured. */
    static final String BEARER_CHALLENGE = "Bearer realm=\"sluice-limiter\"";

    private Problems() {
    }

    /**
     * 400: a parameter (or body member) the service cannot take, named in the member {@code parameter} as the OpenAPI
     * document promises; nothing was counted. {@code reason} says what was expected and what came, without a final
     * period.
     */
    static InvalidRequest invalid(String parameter, String reason) {
        return new InvalidRequest(parameter, reason);
    }

    /** 404 for a path the service does not have, alike for every such path (operations that are off included). */
    static WebApplicationException notFound() {
        return new WebApplicationException(response(404, "about:blank", "Not Found", "No such resource.",
                new JsonObject()));
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

    /** A 400 that knows its parameter, so that an item of a batch can name the body member it came from. */
    static final class InvalidRequest extends WebApplicationException {

        private static final long serialVersionUID = 1L;

        private final String parameter;
        private final String reason;

        private InvalidRequest(String parameter, String reason) {
            super(response(400, INVALID_REQUEST, "Invalid Request", parameter + ": " + reason
                    + ". Nothing was counted.", new JsonObject().put("parameter", parameter)));
            this.parameter = parameter;
            this.reason = reason;
        }

        /** The same problem for an item of a batch, such as {@code requests[1]}: parameter {@code requests[1].cost}. */
        InvalidRequest inItem(String item) {
            return new InvalidRequest(item + "." + parameter, reason);
        }
    }

    /**
     * A store call; its failures become problems (nothing about them, such as a key, reaches the caller). Every
     * argument a Sluice store refuses is checked before the call, so a store that refuses one
     * ({@link IllegalArgumentException}) cannot do what the service asks, as one that does not support it.
     */
    static <T> T call(Supplier<T> call) {
        try {
            return call.get();
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            throw Problems.notSupported("The application's counter store cannot do this: " + e.getMessage());
        } catch (CompletionException e) {
            throw Problems.unavailable();
        } catch (WebApplicationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw Problems.unavailable();
        }
    }
}
