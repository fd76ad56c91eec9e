package dev.sluice.jersey.client;

import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.internal.Durations;
import dev.sluice.limiter.RateLimitExceededException;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import jakarta.ws.rs.ConstrainedTo;
import jakarta.ws.rs.RuntimeType;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.client.ClientResponseContext;
import jakarta.ws.rs.client.ClientResponseFilter;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Keeps outgoing calls of a Jersey (JAX-RS) client, or of a whole fleet of workers, within a remote API's limits.
 *
 * <pre>{@code
 * Client client = ClientBuilder.newClient().register(RateLimitClientFilter.builder()
 *         .rule(ClientRule.builder("github").host("api.github.com")
 *                 .policy(Policy.of(Algorithm.GCRA, Limit.of(5000, Duration.ofHours(1)))).build())
 *         .store(hazelcastStore).maxWait(Duration.ofSeconds(30)).build());
 * }</pre>
 *
 * <p>Before a request is sent, every matching rule takes a permit, waiting at most {@link Builder#maxWait}, else the
 * call fails with a {@link RateLimitExceededException}. A {@code 429} with {@code Retry-After} pauses the request's
 * keys in the store, for every worker sharing it. Configure a window somewhat longer than the remote's, by the
 * variation in transit time. Thread-safe. See {@code docs/design/adapters.md}.
 */
@ConstrainedTo(RuntimeType.CLIENT)
public final class RateLimitClientFilter implements ClientRequestFilter, ClientResponseFilter {

    private static final String KEYS_PROPERTY = RateLimitClientFilter.class.getName() + ".keys";

    private final List<LimitedRule> rules;
    private final RemotePauses pauses;
    private final TimeSource time;
    private final Duration maxWait;

    private RateLimitClientFilter(Builder builder) {
        this.time = builder.time;
        this.maxWait = builder.maxWait;
        CounterStore store = builder.store != null ? builder.store
                : new LocalCounterStore(time, LocalCounterStore.DEFAULT_MAX_KEYS);
        this.rules = builder.rules.stream().map(rule -> new LimitedRule(rule,
                RateLimiter.builder().policy(rule.policy()).store(store).timeSource(time).build())).toList();
        this.pauses = new RemotePauses(store);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A rule with the limiter that takes its permits. */
    private record LimitedRule(ClientRule rule, RateLimiter limiter) {
    }

    /** A counter key a request counted under, with the rule that names it. */
    private record Counted(String key, ClientRule rule) {
    }

    @Override
    public void filter(ClientRequestContext request) throws InterruptedIOException {
        URI uri = request.getUri();
        String host = hostOf(uri);
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        List<Counted> counted = new ArrayList<>(1);
        long deadline = Durations.saturatedAdd(time.nanos(), maxWait.toNanos());
        try {
            for (LimitedRule limited : rules) {
                ClientRule rule = limited.rule();
                if (rule.matches(host, path)) {
                    String key = rule.counterKey(host, path);
                    admit(key, rule, limited.limiter(), deadline);
                    counted.add(new Counted(key, rule));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a permit to call " + uri);
        }
        request.setProperty(KEYS_PROPERTY, counted);
    }

    /** Takes a permit under {@code key} that is not older than the key's latest pause. */
    private void admit(String key, ClientRule rule, RateLimiter limiter, long deadline) throws InterruptedException {
        while (true) {
            awaitUnpaused(key, rule, deadline);
            limiter.acquire(key, 1, Duration.ofNanos(Math.max(0, deadline - time.nanos())));
            if (pauses.check(key, rule.id()).allowed()) {
                return;
            }
        }
    }

    private void awaitUnpaused(String key, ClientRule rule, long deadline) throws InterruptedException {
        Decision pause = pauses.check(key, rule.id());
        while (!pause.allowed()) {
            if (pause.retryAfterNanos() > deadline - time.nanos()) {
                throw new RateLimitExceededException(pause, 1, maxWait);
            }
            time.sleep(pause.retryAfterNanos());
            pause = pauses.check(key, rule.id());
        }
    }

    @Override
    public void filter(ClientRequestContext request, ClientResponseContext response) {
        if (response.getStatus() != 429 || !(request.getProperty(KEYS_PROPERTY) instanceof List<?> counted)) {
            return;
        }
        retryAfter(response.getHeaderString("Retry-After"), time.nanos()).ifPresent(pause -> {
            for (Object entry : counted) {
                Counted key = (Counted) entry;
                pauses.pause(key.key(), key.rule().id(), pause);
            }
        });
    }

    /**
     * A {@code Retry-After} value (delay-seconds or an HTTP date) as a positive wait from {@code nowEpochNanos}
     * (nanoseconds since the Unix epoch); empty when absent, invalid or not in the future.
     */
    static Optional<Duration> retryAfter(@Nullable String value, long nowEpochNanos) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String text = value.trim();
        Duration wait;
        try {
            wait = Duration.ofSeconds(Long.parseLong(text));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant date = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                wait = Duration.between(Instant.ofEpochSecond(0, nowEpochNanos), date);
            } catch (DateTimeParseException invalid) {
                return Optional.empty();
            }
        }
        return wait.isNegative() || wait.isZero() ? Optional.empty() : Optional.of(wait);
    }

    private static String hostOf(URI uri) {
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        return uri.getPort() < 0 ? host : host + ":" + uri.getPort();
    }

    /** Builds a {@link RateLimitClientFilter}; not thread-safe. */
    public static final class Builder {
        private final List<ClientRule> rules = new ArrayList<>();
        private @Nullable CounterStore store;
        private TimeSource time = TimeSource.system();
        private Duration maxWait = Duration.ofSeconds(30);

        private Builder() {
        }

        /** Adds rules; a request takes a permit of every rule that matches it, in the order added. */
        public Builder rule(ClientRule... more) {
            rules.addAll(List.of(more));
            return this;
        }

        /** Where counters and pauses live; share one (Hazelcast) store across workers. Default: a local store. */
        public Builder store(CounterStore counterStore) {
            this.store = Objects.requireNonNull(counterStore, "store");
            return this;
        }

        /** The longest a call waits for its permits (and for a pause to end) before it fails; default 30 s. */
        public Builder maxWait(Duration wait) {
            if (wait.isNegative()) {
                throw new IllegalArgumentException("maxWait must not be negative, got " + wait);
            }
            this.maxWait = wait;
            return this;
        }

        /**
         * The time used to wait, and the "now" an HTTP-date {@code Retry-After} is read against, so it must count from
         * the Unix epoch as {@link TimeSource#system()} (the default) and {@link dev.sluice.ManualTimeSource} do.
         */
        public Builder timeSource(TimeSource source) {
            this.time = Objects.requireNonNull(source, "timeSource");
            return this;
        }

        public RateLimitClientFilter build() {
            return new RateLimitClientFilter(this);
        }
    }
}
