package dev.sluice.service;

import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.internal.DurationText;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.StoreHealth;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The limiter as an HTTP service: register it on a Jersey application and it serves, under {@code limits/} of the
 * application's base path, the limits of a {@link LimitsFile} by id (and key, for ids that count per key), counting
 * in the application's {@link CounterStore}. Give every instance of a cluster the same store (a Hazelcast store of one
 * cluster) and the same file, and every instance answers alike.
 *
 * <pre>{@code
 * ResourceConfig app = new ResourceConfig().register(LimiterService.builder()
 *         .limits(LimitsFile.read(Path.of("/etc/app/limits.json")))
 *         .store(store)
 *         .clientToken(System.getenv("LIMITER_CLIENT_TOKEN"))           // optional: the rate endpoints
 *         .operationsToken(System.getenv("LIMITER_OPERATIONS_TOKEN"))   // optional: reset and state endpoints
 *         .build());
 * }</pre>
 *
 * <p>Only the workers that call the remote APIs should reach it (an internal address): whoever does spends the limits.
 * A {@code POST} needs the header {@code Sluice-Client} or a JSON body (refused otherwise as one a page of another
 * site could have had a browser send), tokens travel in headers, bodies are read to 64 KiB at most.
 *
 * <p>Ids with a concurrency limit lend permits for a lease, released by a token that any instance signing with the
 * same {@link Builder#permitSigningKey} accepts. Endpoints, answers and errors: {@code docs/limiter-service.md} and
 * the OpenAPI document at {@code limits/openapi.json}. Each application that registers it logs one {@code INFO} line
 * as it starts; the service takes its settings from this builder only, by no names.
 *
 * <p>Immutable and thread-safe; one instance may be registered on several applications.
 */
public final class LimiterService implements Feature {

    /** The longest wait an acquire may ask for unless the builder says otherwise: one minute. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofMinutes(1);

    /** How far ahead of the service's clock an {@code at} may be and still count as now, unless told otherwise. */
    public static final Duration DEFAULT_MAX_FUTURE_SKEW = Duration.ofSeconds(1);

    /** How long a reservation's settle may give a difference back, unless told otherwise: one hour. */
    public static final Duration DEFAULT_RESERVATION_LIFETIME = Duration.ofHours(1);

    private static final System.Logger LOG = System.getLogger(LimiterService.class.getName());

    private final LimitsFile limits;
    private final CounterStore store;
    private final OperationsAccess operations;
    private final OperationsAccess callers;
    private final Duration maxWait;
    private final LimitsResource resource;

    private LimiterService(Builder builder) {
        this.limits = Objects.requireNonNull(builder.limits, "limits");
        this.store = Objects.requireNonNull(builder.store, "store");
        this.operations = OperationsAccess.operations(builder.token, builder.role);
        this.callers = OperationsAccess.callers(builder.clientToken, builder.clientRole);
        this.maxWait = builder.maxWait;
        this.resource = new LimitsResource(limits, store, builder.time, maxWait.toNanos(),
                builder.maxFutureSkew.toNanos(), operations, new Tokens(builder.permitSigningKey),
                builder.reservationLifetime.toNanos());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Registers the service's resource on the application, and logs the start line. */
    @Override
    public boolean configure(FeatureContext context) {
        context.register(resource);
        context.register(new RequestChecks(callers, operations));
        context.register(new ProblemBodies());
        LOG.log(System.Logger.Level.INFO, startLine());
        return true;
    }

    /**
     * What the service counts with, now: {@code Sluice limiter service started: store hazelcast-client (2 members),
     * 3 limit ids from limits.json, failure policy local, timeout 100ms, callers open, operations off, longest wait
     * 60000 ms}.
     */
    String startLine() {
        StoreHealth health = store.services().health();
        int members = health.membersSeen();
        String seen = health.mode().equals(StoreHealth.LOCAL.mode()) ? "this instance only"
                : members + (members == 1 ? " member" : " members");
        int ids = limits.entries().size();
        String failure = store instanceof FailurePolicyStore policy
                ? "failure policy " + policy.onFailure().settingName() + ", timeout "
                        + DurationText.format(policy.timeout())
                : "no failure policy (a store failure answers 503)";
        return "Sluice limiter service started: store " + health.mode() + " (" + seen + "), " + ids
                + (ids == 1 ? " limit id" : " limit ids") + " from " + limits.name() + ", " + failure + ", callers "
                + (callers.enabled() ? callers.describe() : "open") + ", operations " + operations.describe()
                + ", longest wait " + maxWait.toMillis() + " ms";
    }

    /** Settings of a {@link LimiterService}; not thread-safe. */
    public static final class Builder {
        private @Nullable LimitsFile limits;
        private @Nullable CounterStore store;
        private TimeSource time = TimeSource.system();
        private Duration maxWait = DEFAULT_MAX_WAIT;
        private Duration maxFutureSkew = DEFAULT_MAX_FUTURE_SKEW;
        private Duration reservationLifetime = DEFAULT_RESERVATION_LIFETIME;
        private @Nullable String token;
        private @Nullable String role;
        private @Nullable String clientToken;
        private @Nullable String clientRole;
        private byte[] permitSigningKey = randomKey();

        private Builder() {
        }

        /** The limits by id (required). */
        public Builder limits(LimitsFile file) {
            this.limits = Objects.requireNonNull(file, "file");
            return this;
        }

        /**
         * The limits read from {@code file}.
         *
         * @throws dev.sluice.rules.RulesException naming file, line, column and field when the file is invalid
         */
        public Builder limitsFile(Path file) {
            return limits(LimitsFile.read(file));
        }

        /** Where the limits count (required): the application's store, shared by the cluster's instances. */
        public Builder store(CounterStore counters) {
            this.store = Objects.requireNonNull(counters, "counters");
            return this;
        }

        /**
         * The service's clock, from which the age of a request's {@code at} is measured and the instants of its
         * answers are given (the store keeps its own time); the system clock by default, a manual one in tests.
         */
        public Builder timeSource(TimeSource source) {
            this.time = Objects.requireNonNull(source, "source");
            return this;
        }

        /** The longest wait an acquire may ask for, and its wait when it names none; default one minute. */
        public Builder maxWait(Duration wait) {
            if (wait.isNegative()) {
                throw new IllegalArgumentException("maxWait must not be negative, got " + wait);
            }
            this.maxWait = wait;
            return this;
        }

        /**
         * How far an {@code at} may be ahead of the service's clock (a client's clock running ahead) and still count
         * as now; later ones are refused. Default one second.
         */
        public Builder maxFutureSkew(Duration skew) {
            if (skew.isNegative()) {
                throw new IllegalArgumentException("maxFutureSkew must not be negative, got " + skew);
            }
            this.maxFutureSkew = skew;
            return this;
        }

        /**
         * How long after a reservation its settle may still give a difference below the estimate back; later, a settle
         * charges an excess only (the estimate stays counted). A reservation's settle leaves a mark in the store for
         * this long, plus a minute for instances' clocks to differ, which a second settle finds. From 1 s to 366
         * days; default one hour.
         */
        public Builder reservationLifetime(Duration lifetime) {
            if (lifetime.compareTo(Duration.ofSeconds(1)) < 0 || lifetime.compareTo(Limit.MAX_PERIOD) > 0) {
                throw new IllegalArgumentException("reservationLifetime must be from 1s to " + Limit.MAX_PERIOD.toDays()
                        + " days, got " + lifetime);
            }
            this.reservationLifetime = lifetime;
            return this;
        }

        /**
         * Turns the operations endpoints on for callers that send {@code Authorization: Bearer <token>}. At least 16
         * characters; keep it out of source code and logs.
         */
        public Builder operationsToken(String bearerToken) {
            this.token = checkedToken("operations", bearerToken);
            return this;
        }

        /**
         * Asks the callers of the rate endpoints (delay, increment, acquire, batches, permits, reservations and their
         * settles) for {@code Authorization: Bearer <token>}, or the operations credential; without this or
         * {@link #clientRole} anyone who reaches the service may call them. At least 16 characters; keep it out of
         * source code and logs. {@code GET limits} and the OpenAPI document stay open.
         */
        public Builder clientToken(String bearerToken) {
            this.clientToken = checkedToken("client", bearerToken);
            return this;
        }

        /**
         * Lets authenticated users in {@code roleName} (the container's roles) call the rate endpoints, as
         * {@link #clientToken} lets its holders.
         */
        public Builder clientRole(String roleName) {
            this.clientRole = checkedRole("client", roleName);
            return this;
        }

        private static String checkedToken(String which, @Nullable String bearerToken) {
            if (bearerToken == null || bearerToken.strip().length() < 16 || !bearerToken.equals(bearerToken.strip())) {
                throw new IllegalArgumentException("the " + which + " token must have at least 16 characters and no"
                        + " surrounding blanks");
            }
            return bearerToken;
        }

        private static String checkedRole(String which, @Nullable String roleName) {
            if (roleName == null || roleName.isBlank()) {
                throw new IllegalArgumentException("the " + which + " role must not be blank");
            }
            return roleName;
        }

        /**
         * The key that signs the permit tokens this service grants (HMAC-SHA256), at least 32 characters: give every
         * instance behind one load balancer the same key, so that a permit granted by one is released through any.
         * Without it each service signs with a random key of its own, and releases only the permits it granted (a
         * token from another instance is refused with 400; its permit returns at its lease's end). Keep it out of
         * source code and logs.
         */
        public Builder permitSigningKey(String key) {
            if (key == null || key.length() < Tokens.MIN_KEY_BYTES) {
                throw new IllegalArgumentException("the permit signing key must have at least "
                        + Tokens.MIN_KEY_BYTES + " characters");
            }
            this.permitSigningKey = Tokens.keyBytes(key);
            return this;
        }

        /** Turns the operations endpoints on for authenticated users in {@code roleName} (the container's roles). */
        public Builder operationsRole(String roleName) {
            this.role = checkedRole("operations", roleName);
            return this;
        }

        public LimiterService build() {
            return new LimiterService(this);
        }

        private static byte[] randomKey() {
            byte[] key = new byte[Tokens.MIN_KEY_BYTES];
            new SecureRandom().nextBytes(key);
            return key;
        }
    }
}
