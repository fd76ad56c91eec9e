package dev.sluice.service;

import dev.sluice.http.RefusedBodies;
import dev.sluice.internal.json.JsonObject;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What every request to the service's endpoints passes before its endpoint runs, in this order:
 * <ol>
 *   <li>a body no longer than {@value #MAX_BODY_BYTES} bytes by its {@code Content-Length} (413; a body without a
 *   length is bounded as it is read, {@link #readBody});</li>
 *   <li>a {@code POST} that a page of another site could not have had a browser send without asking first (a CORS
 *   simple request: no {@value #CLIENT_HEADER} header and no content type, or a form's or {@code text/plain}): such a
 *   page reads no answer, but its request would still count, hold permits and reset keys with the browser's
 *   credentials for the service (403). Every other method the service takes is preflighted, and the service answers
 *   no CORS preflight;</li>
 *   <li>the callers' credential on the rate endpoints, when one is configured (the operations' credential is taken
 *   too), 401 or 403; the endpoints marked {@link OwnAccess} check theirs themselves or need none.</li>
 * </ol>
 * Registered by {@link LimiterService}; applies to {@link LimitsResource} alone. Immutable and thread-safe.
 */
final class RequestChecks implements ContainerRequestFilter {

    /** The longest body the service reads: a batch of {@value BatchRequest#MAX_REQUESTS} requests fits many times. */
    static final int MAX_BODY_BYTES = 64 * 1024;

    /** The header with which a client says it is not a page of another site; any value, such as its name. */
    static final String CLIENT_HEADER = "Sluice-Client";

    private static final Set<String> SIMPLE_TYPES = Set.of("application/x-www-form-urlencoded",
            "multipart/form-data", "text/plain");

    /** An endpoint that checks its own access (the operations) or needs none (the descriptions of the service). */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @interface OwnAccess {
    }

    private final OperationsAccess callers;
    private final OperationsAccess operations;

    @Context
    private @Nullable ResourceInfo resource;

    RequestChecks(OperationsAccess callers, OperationsAccess operations) {
        this.callers = callers;
        this.operations = operations;
    }

    /**
     * Checks the request before anything reads it. A refusal of a request with a body closes the connection, the rest
     * of its body {@linkplain RefusedBodies dropped} (the connection cannot carry a next request).
     */
    @Override
    public void filter(ContainerRequestContext request) {
        try {
            check(request);
        } catch (WebApplicationException refused) {
            if (!request.hasEntity()) {
                throw refused;
            }
            RefusedBodies.drain(request.getEntityStream());
            throw new WebApplicationException(Response.fromResponse(refused.getResponse()).header("Connection", "close")
                    .build());
        }
    }

    private void check(ContainerRequestContext request) {
        @Nullable ResourceInfo matched = resource;
        if (matched == null || matched.getResourceClass() != LimitsResource.class) {
            return;
        }
        if (request.getLength() > MAX_BODY_BYTES) {
            throw tooLarge();
        }
        if (request.getMethod().equals(HttpMethod.POST) && request.getHeaderString(CLIENT_HEADER) == null
                && simpleType(request.getHeaderString(HttpHeaders.CONTENT_TYPE))) {
            throw new WebApplicationException(Problems.response(403, Problems.CROSS_SITE, "Cross-Site Request",
                    "A POST to the limiter service carries the header " + CLIENT_HEADER + " (any value, such as the"
                            + " client's name) or a JSON body (Content-Type: application/json): a page of another"
                            + " site cannot have a browser send either without asking, and the service never says"
                            + " yes. Nothing was counted.", new JsonObject()));
        }
        @Nullable Method method = matched.getResourceMethod();
        if (method != null && !method.isAnnotationPresent(OwnAccess.class)) {
            @Nullable String authorization = request.getHeaderString(HttpHeaders.AUTHORIZATION);
            if (!callers.allows(authorization, request.getSecurityContext())
                    && !operations.allows(authorization, request.getSecurityContext())) {
                throw callers.refusal(authorization, request.getSecurityContext());
            }
        }
    }

    /** Whether a content type is one a page may send without asking: none, a form's or plain text. */
    private static boolean simpleType(@Nullable String contentType) {
        if (contentType == null) {
            return true;
        }
        int parameters = contentType.indexOf(';');
        String essence = (parameters < 0 ? contentType : contentType.substring(0, parameters)).strip();
        return SIMPLE_TYPES.contains(essence.toLowerCase(Locale.ROOT));
    }

    /**
     * The body, read to its end but kept no further than {@value #MAX_BODY_BYTES} bytes: a 413 when it is longer, the
     * rest {@linkplain RefusedBodies dropped} (its {@code Content-Length}, when it had one, was checked before the
     * endpoint ran).
     */
    static byte[] readBody(InputStream body) {
        try {
            byte[] read = body.readNBytes(MAX_BODY_BYTES + 1);
            if (read.length > MAX_BODY_BYTES) {
                RefusedBodies.drain(body);
                throw tooLarge();
            }
            return read;
        } catch (IOException e) {
            throw Problems.invalid("body", "the body could not be read to its end");
        }
    }

    /** The 413 of a body too long; a refusal before its body is read closes the connection ({@link #filter}). */
    private static WebApplicationException tooLarge() {
        Response refused = Problems.response(413, "about:blank", "Content Too Large",
                "The service reads bodies of at most " + MAX_BODY_BYTES + " bytes. Nothing was counted.",
                new JsonObject());
        return new WebApplicationException(Response.fromResponse(refused).header("Connection", "close").build());
    }
}
