package dev.sluice.rules.match;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A host that a rule is restricted to: {@code api.example.com}, {@code *.example.com} for the subdomains of
 * {@code example.com} at any depth (not {@code example.com} itself), or an IPv6 literal in brackets
 * ({@code [2001:db8::1]}); each optionally with a port. Server rules ({@code Rule}) and the Jersey client filter's
 * rules match hosts through this one class, so they agree. Case and a trailing dot do not matter.
 *
 * <p>A pattern without a port matches its host on any port; one with a port matches a request naming that port, and
 * a request naming none only when the port is 80 or 443. Immutable and thread-safe; equal when their normalized text
 * ({@link #toString()}) is. Ports and request authorities in detail: {@code docs/design/rules.md}.
 */
public final class HostPattern {

    /** What a host pattern looks like, for messages. */
    public static final String EXPECTED = "a host name such as \"api.example.com\" or \"*.example.com\"";

    private static final Pattern SYNTAX =
            Pattern.compile("(\\*\\.)?[a-z0-9.-]+(:\\d{1,5})?|\\[[0-9a-f:.]+](:\\d{1,5})?");
    private static final int ANY_PORT = -1;
    private static final int HTTP_PORT = 80;
    private static final int HTTPS_PORT = 443;
    private static final int MAX_PORT = 65_535;

    private final String text;
    /** The host, lower case without a trailing dot; for a wildcard, the suffix of every match: ".example.com". */
    private final String host;
    private final boolean wildcard;
    private final int port;

    private HostPattern(String text, String host, boolean wildcard, int port) {
        this.text = text;
        this.host = host;
        this.wildcard = wildcard;
        this.port = port;
    }

    /**
     * Parses a pattern such as {@code api.example.com}, {@code *.example.com:8443} or {@code [::1]:8080}.
     *
     * @throws IllegalArgumentException saying what a host pattern looks like
     */
    public static HostPattern parse(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (!SYNTAX.matcher(lower).matches()) {
            throw invalid(text);
        }
        boolean wildcard = lower.startsWith("*.");
        Authority authority = Authority.of(wildcard ? lower.substring(2) : lower);
        if (authority.host().isEmpty() || authority.port() > MAX_PORT) {
            throw invalid(text);
        }
        String host = wildcard ? "." + authority.host() : authority.host();
        int port = authority.port() == Authority.NO_PORT ? ANY_PORT : authority.port();
        String normalized = (wildcard ? "*" : "") + host + (port == ANY_PORT ? "" : ":" + port);
        return new HostPattern(normalized, host, wildcard, port);
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("host: expected " + EXPECTED + ", got \"" + text + "\"");
    }

    /**
     * Whether a request to {@code requestHost} (the authority as sent: {@code host}, {@code host:port},
     * {@code [v6]:port}; null when unknown, which matches no pattern) is covered, by the rules in the class comment.
     */
    public boolean matches(@Nullable String requestHost) {
        return matchesAuthority(Authority.of(requestHost));
    }

    /** Like {@link #matches(String)}, for an authority already split (once per request, however many rules ask). */
    public boolean matchesAuthority(Authority request) {
        boolean hostMatches = wildcard ? request.host().endsWith(host) : request.host().equals(host);
        return hostMatches && (port == ANY_PORT || port == request.port()
                || request.port() == Authority.NO_PORT && (port == HTTP_PORT || port == HTTPS_PORT));
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof HostPattern other && text.equals(other.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** The pattern, lower case, without a trailing dot: {@code *.example.com:8443}. */
    @Override
    public String toString() {
        return text;
    }

    /**
     * A request's host and port, split once: the host lower case without a trailing dot (empty when unknown); the
     * port, {@link #NO_PORT} when none is named, or {@link #INVALID_PORT} when what follows the colon is no port.
     */
    public record Authority(String host, int port) {

        public static final int NO_PORT = -1;
        public static final int INVALID_PORT = -2;
        private static final Authority UNKNOWN = new Authority("", NO_PORT);

        public Authority {
            Objects.requireNonNull(host, "host");
        }

        public static Authority of(@Nullable String authority) {
            if (authority == null) {
                return UNKNOWN;
            }
            String lower = authority.toLowerCase(Locale.ROOT);
            int portStart;
            if (lower.startsWith("[")) {
                int close = lower.indexOf(']');
                portStart = close > 0 && close + 1 < lower.length() && lower.charAt(close + 1) == ':' ? close + 1 : -1;
            } else {
                int colon = lower.indexOf(':');
                portStart = colon >= 0 && colon == lower.lastIndexOf(':') ? colon : -1;
            }
            String host = portStart < 0 ? lower : lower.substring(0, portStart);
            if (host.endsWith(".")) {
                host = host.substring(0, host.length() - 1);
            }
            return new Authority(host, portStart < 0 ? NO_PORT : port(lower.substring(portStart + 1)));
        }

        /** The port of {@code text}: one to five digits; otherwise {@link #INVALID_PORT}. */
        private static int port(String text) {
            if (text.isEmpty() || text.length() > 5) {
                return INVALID_PORT;
            }
            for (int i = 0; i < text.length(); i++) {
                if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                    return INVALID_PORT;
                }
            }
            return Integer.parseInt(text);
        }
    }
}
