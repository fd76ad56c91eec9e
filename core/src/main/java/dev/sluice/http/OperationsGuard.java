package dev.sluice.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Who may use operations endpoints (the limiter service's reset and state, the console): a caller with the configured
 * bearer token, or an authenticated user in the configured role. With neither configured the operations are off, and
 * should answer as an unknown path does. Tokens are compared in constant time (as SHA-256 digests, so that neither
 * their content nor their length shows in the time taken), and never logged or repeated. HTTP-neutral: each adapter
 * turns the {@link Verdict} into its own answer. Immutable and thread-safe.
 */
public final class OperationsGuard {

    /** What a caller may do. */
    public enum Verdict {
        /** Go ahead. */
        ALLOWED,
        /** The operations are off: answer 404. */
        OFF,
        /** No or a wrong credential: answer 401 with {@link OperationsGuard#challenge(String, String)}. */
        UNAUTHORIZED,
        /** Authenticated, but not in the role (and no token configured): answer 403. */
        FORBIDDEN
    }

    private static final String BEARER = "bearer ";

    private final byte @Nullable [] tokenDigest;
    private final @Nullable String role;

    /** Operations for a caller with {@code token}, or in {@code role}; off when both are null. */
    public OperationsGuard(@Nullable String token, @Nullable String role) {
        this.tokenDigest = token == null ? null : sha256(token);
        this.role = role;
    }

    /** Whether any caller may operate. */
    public boolean enabled() {
        return tokenDigest != null || role != null;
    }

    /** Whether a token is configured. */
    public boolean byToken() {
        return tokenDigest != null;
    }

    /** Whether a role is configured. */
    public boolean byRole() {
        return role != null;
    }

    /** For a start line: {@code off}, or on for whom (never the token). */
    public String describe() {
        if (!enabled()) {
            return "off";
        }
        String token = tokenDigest != null ? "bearer token" : "";
        String inRole = role != null ? "role '" + role + "'" : "";
        return "on (" + token + (token.isEmpty() || inRole.isEmpty() ? "" : " or ") + inRole + ")";
    }

    /**
     * The verdict on a caller.
     *
     * @param authorization the request's {@code Authorization} header, if any
     * @param authenticated whether the container authenticated the caller
     * @param inRole whether the authenticated caller is in a role
     */
    public Verdict check(@Nullable String authorization, boolean authenticated, Predicate<String> inRole) {
        if (!enabled()) {
            return Verdict.OFF;
        }
        if (tokenDigest != null && authorization != null && authorization.length() > BEARER.length()
                && authorization.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)
                && MessageDigest.isEqual(tokenDigest, sha256(authorization.substring(BEARER.length()).trim()))) {
            return Verdict.ALLOWED;
        }
        if (role != null && authenticated) {
            if (inRole.test(role)) {
                return Verdict.ALLOWED;
            }
            if (tokenDigest == null) {
                return Verdict.FORBIDDEN;
            }
        }
        return Verdict.UNAUTHORIZED;
    }

    /** The {@code WWW-Authenticate} value of a 401: a bearer challenge, or Basic in {@code realm} without a token. */
    public String challenge(String bearerChallenge, String realm) {
        return tokenDigest != null ? bearerChallenge : "Basic realm=\"" + realm + "\"";
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
