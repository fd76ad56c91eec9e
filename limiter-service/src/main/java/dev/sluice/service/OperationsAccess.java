package dev.sluice.service;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Who may reset and read keys: a caller with the configured bearer token, or in the configured role. With neither
 * configured the operations are not there at all (404, as for any unknown path). Tokens are compared in constant time
 * (as SHA-256 digests, so that neither their content nor their length shows in the time taken), and never logged or
 * repeated. Immutable and thread-safe.
 */
final class OperationsAccess {

    private static final String BEARER = "bearer ";

    private final byte @Nullable [] tokenDigest;
    private final @Nullable String role;

    OperationsAccess(@Nullable String token, @Nullable String role) {
        this.tokenDigest = token == null ? null : sha256(token);
        this.role = role;
    }

    boolean enabled() {
        return tokenDigest != null || role != null;
    }

    /** For the start line: {@code off}, or on for whom (never the token). */
    String describe() {
        if (!enabled()) {
            return "off";
        }
        String byToken = tokenDigest != null ? "bearer token" : "";
        String byRole = role != null ? "role '" + role + "'" : "";
        return "on (" + byToken + (byToken.isEmpty() || byRole.isEmpty() ? "" : " or ") + byRole + ")";
    }

    /**
     * Returns when the caller may operate; else throws 404 (operations off), 401 (no or a wrong credential, with
     * {@code WWW-Authenticate}) or 403 (authenticated, but not in the role).
     */
    void check(HttpHeaders headers, SecurityContext security) {
        if (!enabled()) {
            throw Problems.notFound();
        }
        if (tokenDigest != null) {
            @Nullable String authorization = headers.getHeaderString(HttpHeaders.AUTHORIZATION);
            if (authorization != null && authorization.length() > BEARER.length()
                    && authorization.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)
                    && MessageDigest.isEqual(tokenDigest, sha256(authorization.substring(BEARER.length()).trim()))) {
                return;
            }
        }
        if (role != null && security.getUserPrincipal() != null) {
            if (security.isUserInRole(role)) {
                return;
            }
            if (tokenDigest == null) {
                throw new WebApplicationException(Problems.response(403, Problems.FORBIDDEN, "Forbidden",
                        "Resetting and reading keys needs the role that the service was configured with.",
                        new JsonObject()));
            }
        }
        Response unauthorized = Problems.response(401, Problems.UNAUTHORIZED, "Unauthorized",
                "Resetting and reading keys needs " + (tokenDigest != null ? "the operations bearer token"
                        + (role != null ? " or the operations role" : "")
                        : "an authenticated user in the operations role")
                        + ".", new JsonObject());
        throw new WebApplicationException(Response.fromResponse(unauthorized)
                .header(HttpHeaders.WWW_AUTHENTICATE, tokenDigest != null ? Problems.BEARER_CHALLENGE
                        : "Basic realm=\"sluice-limiter\"").build());
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
