package dev.sluice.service;

import dev.sluice.http.OperationsGuard;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import org.jspecify.annotations.Nullable;

/**
 * Who may reset and read keys: the service's answers to an {@link OperationsGuard}'s verdicts. With neither a token
 * nor a role configured the operations are not there at all (404, as for any unknown path). Immutable and
 * thread-safe.
 */
final class OperationsAccess {

    private final OperationsGuard guard;

    OperationsAccess(@Nullable String token, @Nullable String role) {
        this.guard = new OperationsGuard(token, role);
    }

    boolean enabled() {
        return guard.enabled();
    }

    /** For the start line: {@code off}, or on for whom (never the token). */
    String describe() {
        return guard.describe();
    }

    /**
     * Returns when the caller may operate; else throws 404 (operations off), 401 (no or a wrong credential, with
     * {@code WWW-Authenticate}) or 403 (authenticated, but not in the role).
     */
    void check(HttpHeaders headers, SecurityContext security) {
        switch (guard.check(headers.getHeaderString(HttpHeaders.AUTHORIZATION), security.getUserPrincipal() != null,
                security::isUserInRole)) {
            case ALLOWED -> {
                return;
            }
            case OFF -> throw Problems.notFound();
            case FORBIDDEN -> throw new WebApplicationException(Problems.response(403, Problems.FORBIDDEN,
                    "Forbidden", "Resetting and reading keys needs the role that the service was configured with.",
                    new JsonObject()));
            case UNAUTHORIZED -> {
                Response unauthorized = Problems.response(401, Problems.UNAUTHORIZED, "Unauthorized",
                        "Resetting and reading keys needs " + (guard.byToken() ? "the operations bearer token"
                                + (guard.byRole() ? " or the operations role" : "")
                                : "an authenticated user in the operations role")
                                + ".", new JsonObject());
                throw new WebApplicationException(Response.fromResponse(unauthorized).header(
                        HttpHeaders.WWW_AUTHENTICATE, guard.challenge(Problems.BEARER_CHALLENGE, "sluice-limiter"))
                        .build());
            }
            default -> throw new IllegalStateException("unknown verdict");
        }
    }
}
