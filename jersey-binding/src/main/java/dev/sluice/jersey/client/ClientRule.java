package dev.sluice.jersey.client;

import dev.sluice.algorithm.Policy;
import dev.sluice.rules.match.HostPattern;
import dev.sluice.rules.match.PathPattern;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A limit of a remote API that outgoing calls must stay within: which requests it covers (target host, path
 * pattern), the {@link Policy} (typically {@code STEPPED_SLIDING_WINDOW}, exact over any window, or {@code GCRA},
 * evenly spaced), and what one counter covers ({@link Scope}).
 *
 * <pre>{@code
 * ClientRule.builder("github-search")
 *         .host("api.github.com").path("/search/**")
 *         .policy(Policy.of(Algorithm.STEPPED_SLIDING_WINDOW, Limit.of(30, Duration.ofMinutes(1))))
 *         .build();
 * }</pre>
 *
 * <p>Counters are named by the rule id, so every worker that shares a store and a rule id shares the limit. Immutable
 * and thread-safe.
 */
public final class ClientRule {

    /** What one counter of a rule covers. */
    public enum Scope {
        /** All matching requests to one host (and port) share one counter. */
        HOST,
        /** Each path of a host has its own counter. */
        HOST_AND_PATH
    }

    private final String id;
    /** Null for any host. */
    private final @Nullable HostPattern host;
    private final PathPattern path;
    private final Policy policy;
    private final Scope scope;

    private ClientRule(Builder builder) {
        this.id = builder.id;
        this.host = builder.host;
        this.path = builder.path;
        this.policy = Objects.requireNonNull(builder.policy, "a policy is required for client rule '" + id + "'");
        this.scope = builder.scope;
    }

    /** A rule named {@code id}: letters, digits and {@code ._:#$-}. */
    public static Builder builder(String id) {
        return new Builder(id);
    }

    public String id() {
        return id;
    }

    public Policy policy() {
        return policy;
    }

    /**
     * Whether a request to {@code requestHost} (the URI's host, and its port when it names one) and {@code rawPath} is
     * covered; hosts and ports compare as {@link HostPattern} says, as for the rules of incoming requests.
     */
    boolean matches(String requestHost, String rawPath) {
        return (host == null || host.matches(requestHost)) && path.matches(rawPath);
    }

    /** The counter key of a covered request. */
    String counterKey(String requestHost, String rawPath) {
        String key = "sluice-client|" + id + "|" + requestHost;
        return scope == Scope.HOST ? key : key + "|" + rawPath;
    }

    @Override
    public String toString() {
        return "ClientRule[" + id + " " + (host == null ? "*" : host) + path + " " + policy + " per " + scope + "]";
    }

    /** Builds a {@link ClientRule}; not thread-safe. */
    public static final class Builder {
        private final String id;
        private @Nullable HostPattern host;
        private PathPattern path = PathPattern.parse("/**");
        private @Nullable Policy policy;
        private Scope scope = Scope.HOST;

        private Builder(String id) {
            if (!id.matches("[A-Za-z0-9._:#$-]+")) {
                throw new IllegalArgumentException("client rule id '" + id + "': use letters, digits and ._:#$-");
            }
            this.id = id;
        }

        /**
         * The host, such as {@code api.example.com} (any port), {@code api.example.com:8443} (that port) or
         * {@code *.example.com}, as {@link HostPattern} reads it; default: any host.
         *
         * @throws IllegalArgumentException for a host pattern that is none
         */
        public Builder host(String hostPattern) {
            this.host = HostPattern.parse(hostPattern);
            return this;
        }

        /** The path pattern, as in the rules file ({@code /search/**}, {@code /users/*}); default {@code /**}. */
        public Builder path(String pattern) {
            this.path = PathPattern.parse(pattern);
            return this;
        }

        /** The limits to stay within; required. */
        public Builder policy(Policy newPolicy) {
            this.policy = Objects.requireNonNull(newPolicy, "policy");
            return this;
        }

        /** What one counter covers; default {@link Scope#HOST}. */
        public Builder scope(Scope newScope) {
            this.scope = Objects.requireNonNull(newScope, "scope");
            return this;
        }

        public ClientRule build() {
            return new ClientRule(this);
        }
    }
}
