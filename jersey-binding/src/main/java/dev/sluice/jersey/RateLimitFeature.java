package dev.sluice.jersey;

import dev.sluice.TimeSource;
import dev.sluice.engine.Evaluation;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.http.HeaderStyle;
import dev.sluice.http.RateLimitResponse;
import dev.sluice.store.CounterStore;
import jakarta.ws.rs.ConstrainedTo;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.RuntimeType;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Rate-limits a Jersey application: every resource method under {@link dev.sluice.annotation.RateLimited}, and, with
 * a rules file, every resource method whose request a rule of the file matches.
 *
 * <pre>{@code
 * ResourceConfig app = new ResourceConfig(SearchResource.class).register(RateLimitFeature.builder()
 *         .rulesFile(Path.of("/etc/myapp/rules.json")).store(hazelcastStore).build());
 * }</pre>
 *
 * <p>Without registration the feature is discovered with the defaults (annotations only, the Sluice servlet filter's
 * store, else a local one). Annotation mistakes fail the deployment. A rejection gets the servlet filter's status,
 * headers and body; rules the filter already counted are not counted again. A leaky-bucket slot in the future is a
 * rejection; a request over a concurrency limit whose rule {@linkplain dev.sluice.rules.Rule#permitWait() waits}
 * blocks its thread up to that wait (a {@code ContainerRequestFilter} cannot suspend a request), first come first
 * served; the servlet filter in front waits without a thread for the rules it matches. Immutable and thread-safe; a
 * given store is not closed, a default one is on shutdown. The feature reads no Jersey properties and no init-params
 * (it is set up on its builder only); at start it logs one {@code INFO} line saying what it limits with. See
 * {@code docs/design/adapters.md}.
 */
@ConstrainedTo(RuntimeType.SERVER)
public final class RateLimitFeature implements Feature {

    /**
     * The priority of the rate-limit filter: after authentication (so a rule keyed by {@code principal} sees the
     * {@code SecurityContext}), before authorization (so forbidden requests are counted too).
     */
    public static final int PRIORITY = Priorities.AUTHORIZATION - 100;

    private final @Nullable Path rulesFile;
    private final Duration reloadInterval;
    private final @Nullable CounterStore store;
    private final HeaderStyle headerStyle;
    private final TimeSource timeSource;

    /** The defaults: annotations only, the servlet filter's store (else a local one), both header styles. */
    public RateLimitFeature() {
        this(builder());
    }

    private RateLimitFeature(Builder builder) {
        this.rulesFile = builder.rulesFile;
        this.reloadInterval = builder.reloadInterval;
        this.store = builder.store;
        this.headerStyle = builder.headerStyle;
        this.timeSource = builder.timeSource;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Settles the reservations of {@code request} (its rules' costs in units other than requests, such as tokens) at
     * {@code actualCost}, now, without waiting for the store: what a resource that knows the cost says instead of (or
     * before) the response header or property its rules read. Each reservation settles once; the request's end then
     * leaves it as it is. Nothing for a request no rule evaluated, or that reserved nothing. See
     * {@link Evaluation#settle(long)}.
     *
     * @throws IllegalArgumentException when {@code actualCost} is negative
     */
    public static void settle(ContainerRequestContext request, long actualCost) {
        if (request.getProperty(RateLimitResponse.EVALUATION_ATTRIBUTE) instanceof Evaluation evaluation) {
            evaluation.settle(actualCost);
        }
    }

    @Override
    public boolean configure(FeatureContext context) {
        if (context.getConfiguration().getRuntimeType() != RuntimeType.SERVER) {
            return false;
        }
        Limiting limiting = new Limiting(rulesFile, reloadInterval, store, headerStyle, timeSource);
        context.register(new AnnotationScanner(limiting));
        context.register(new ResourceBinder(limiting));
        context.register(limiting);
        context.register(new RequestEnding());
        if (ServletAddressCapture.available()) {
            context.register(ServletAddressCapture.class);
        }
        return true;
    }

    /** Builds a {@link RateLimitFeature}; not thread-safe. */
    public static final class Builder {
        private @Nullable Path rulesFile;
        private Duration reloadInterval = ReloadingRuleSet.DEFAULT_RELOAD_INTERVAL;
        private @Nullable CounterStore store;
        private HeaderStyle headerStyle = HeaderStyle.BOTH;
        private TimeSource timeSource = TimeSource.system();

        private Builder() {
        }

        /**
         * A rules file (see {@code docs/RULES.md}), merged with the annotations: a file rule with an annotation's id
         * replaces its limits. With a file, every resource method is filtered, since its rules may match any path
         * (paths are relative to the application's base URI, as in {@code @Path}).
         */
        public Builder rulesFile(Path file) {
            this.rulesFile = Objects.requireNonNull(file, "file");
            return this;
        }

        /**
         * How often the rules file is checked for changes; {@link Duration#ZERO} for never; default
         * {@link ReloadingRuleSet#DEFAULT_RELOAD_INTERVAL} (5 s), as for the servlet filter.
         */
        public Builder rulesReloadInterval(Duration interval) {
            if (interval.isNegative()) {
                throw new IllegalArgumentException("rulesReloadInterval must not be negative, got " + interval);
            }
            this.reloadInterval = interval;
            return this;
        }

        /**
         * Where counters live, used as it is; the caller closes it. A remote store goes behind a timeout and a failure
         * policy first: {@code CounterStores.of(hazelcastStore).timeout(d).onFailure(policy).build()}
         * ({@link dev.sluice.store.CounterStores}). Default: the store a Sluice servlet filter of the same web
         * application published (already bounded by the filter's failure policy), else a local store of the
         * feature's own.
         */
        public Builder store(CounterStore counterStore) {
            this.store = Objects.requireNonNull(counterStore, "store");
            return this;
        }

        /** Which rate-limit header fields responses carry; default {@link HeaderStyle#BOTH}. */
        public Builder headerStyle(HeaderStyle style) {
            this.headerStyle = Objects.requireNonNull(style, "headerStyle");
            return this;
        }

        /**
         * The time by which requests' waits for a concurrency permit end (default the system's); a store keeps its
         * own time. For tests.
         */
        public Builder timeSource(TimeSource time) {
            this.timeSource = Objects.requireNonNull(time, "timeSource");
            return this;
        }

        public RateLimitFeature build() {
            return new RateLimitFeature(this);
        }
    }
}
