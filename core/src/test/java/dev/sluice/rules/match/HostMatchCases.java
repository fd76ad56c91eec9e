package dev.sluice.rules.match;

import java.util.List;

/**
 * How host patterns match request hosts, as a table that server rules ({@link HostPatternTest}) and the Jersey client
 * filter's rules both check themselves against, so that the two agree on ports and case.
 */
public final class HostMatchCases {

    /** Whether a rule for {@code pattern} covers a request to {@code requestHost} (an authority as sent). */
    public record Case(String pattern, String requestHost, boolean matches) {

        /**
         * A pattern that the request's host meets whatever its port: so that, beside it, a server rule of
         * {@link #pattern()} meets the request exactly when the pattern matches (a request naming no host rule's
         * host meets every one).
         */
        public String requestHostOnAnyPort() {
            return HostPattern.Authority.of(requestHost).host();
        }

        @Override
        public String toString() {
            return pattern + (matches ? " matches " : " does not match ") + requestHost;
        }
    }

    /** The cases, each pattern with requests it covers and requests it does not. */
    public static final List<Case> CASES = List.of(
            // Case and a trailing dot do not matter, on either side.
            new Case("api.example.com", "api.example.com", true),
            new Case("API.Example.com", "api.EXAMPLE.com", true),
            new Case("api.example.com.", "api.example.com", true),
            new Case("api.example.com", "api.example.com.", true),
            new Case("api.example.com", "www.example.com", false),
            new Case("api.example.com", "api.example.com.evil.test", false),
            // A pattern without a port: any port, or none.
            new Case("api.example.com", "api.example.com:8443", true),
            new Case("api.example.com", "API.example.com.:80", true),
            // A pattern with a port: that port; no port only when the pattern's is a default one (80, 443).
            new Case("api.example.com:8443", "api.example.com:8443", true),
            new Case("api.example.com:8443", "api.example.com:9443", false),
            new Case("api.example.com:8443", "api.example.com", false),
            new Case("api.example.com:443", "api.example.com", true),
            new Case("API.example.com:443", "api.example.com:443", true),
            new Case("api.example.com:80", "api.example.com", true),
            new Case("api.example.com:443", "api.example.com:8443", false),
            new Case("api.example.com:443", "api.example.com:x", false),
            // Subdomains at any depth, not the domain itself, nor a name merely ending alike.
            new Case("*.example.com", "eu.api.example.com", true),
            new Case("*.Example.com", "EU.example.com:8443", true),
            new Case("*.example.com", "example.com", false),
            new Case("*.example.com", "evilexample.com", false),
            new Case("*.example.com:8443", "eu.example.com:8443", true),
            new Case("*.example.com:8443", "eu.example.com", false),
            // IPv6 literals in brackets, with or without a port; a bare literal has none.
            new Case("[2001:DB8::1]", "[2001:db8::1]:8080", true),
            new Case("[2001:db8::1]:8080", "[2001:db8::1]:8080", true),
            new Case("[2001:db8::1]:8080", "[2001:db8::1]:9090", false),
            new Case("[::1]", "[::2]", false),
            new Case("127.0.0.1", "127.0.0.1:8080", true),
            new Case("127.0.0.1:8080", "127.0.0.1:9090", false));

    private HostMatchCases() {
    }
}
