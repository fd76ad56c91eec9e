package dev.sluice.service;

import dev.sluice.http.OperationsGuard;
import dev.sluice.internal.json.JsonObject;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import org.jspecify.annotations.Nullable;

/**
 * Who may use a group of the service's endpoints, a bearer token or a role: the service's answers to an
 * {@link OperationsGuard}'s verdicts. Two groups: the operations (reset and read keys), which with neither a token nor
 * a role configured are not there at all (404, as for any unknown path), and the callers of the rate endpoints, who
 * with neither need no credential. Immutable and thread-safe.
 */
final class OperationsAccess {

    private final OperationsGuard guard;
    /** What is refused and its verb: {@code Resetting and reading keys needs}. */
    private final String subject;
    private final boolean openWhenOff;

    private OperationsAccess(@Nullable String token, @Nullable String role, String subject, boolean openWhenOff) {
        this.guard = new OperationsGuard(token, role);
        this.subject = subject;
        this.openWhenOff = openWhenOff;
    }

    /** The operations endpoints' access: off (404) unless a token or a role is configured. */
    static OperationsAccess operations(@Nullable String token, @Nullable String role) {
        return new OperationsAccess(token, role, "Resetting and reading keys needs", false);
    }

    /** The rate endpoints' access: open to anyone unless a token or a role is configured. */
    static OperationsAccess callers(@Nullable String token, @Nullable String role) {
        return new OperationsAccess(token, role, "The limiter's rate endpoints need", true);
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
        check(headers.getHeaderString(HttpHeaders.AUTHORIZATION), security);
    }

    /** As {@link #check(HttpHeaders, SecurityContext)}, from the request's {@code Authorization} header. */
    void check(@Nullable String authorization, SecurityContext security) {
        if (!allows(authorization, security)) {
            throw refusal(authorization, security);
        }
    }

    /** Whether the caller may use these endpoints. */
    boolean allows(@Nullable String authorization, SecurityContext security) {
        OperationsGuard.Verdict verdict = verdict(authorization, security);
        return verdict == OperationsGuard.Verdict.ALLOWED || verdict == OperationsGuard.Verdict.OFF && openWhenOff;
    }

    /** The answer to a caller who may not: 404, 401 or 403. */
    WebApplicationException refusal(@Nullable String authorization, SecurityContext security) {
        return switch (verdict(authorization, security)) {
            case ALLOWED -> throw new IllegalStateException("an allowed caller is not refused");
            case OFF -> Problems.notFound();
            case FORBIDDEN -> new WebApplicationException(Problems.response(403, Problems.FORBIDDEN, "Forbidden",
                    subject + " the role that the service was configured with.", new JsonObject()));
            case UNAUTHORIZED -> {
                Response unauthorized = Problems.response(401, Problems.UNAUTHORIZED, "Unauthorized", subject
                        + " " + (guard.byToken() ? "the bearer token" + (guard.byRole() ? " or the role" : "")
                        + " that the service was configured with" : "an authenticated user in the role that the"
                        + " service was configured with") + ".", new JsonObject());
                yield new WebApplicationException(Response.fromResponse(unauthorized).header(
                        HttpHeaders.WWW_AUTHENTICATE, guard.challenge(Problems.BEARER_CHALLENGE, "sluice-limiter"))
                        .build());
            }
        };
    }

    private OperationsGuard.Verdict verdict(@Nullable String authorization, SecurityContext security) {
        return guard.check(authorization, security.getUserPrincipal() != null, security::isUserInRole);
    }
}
