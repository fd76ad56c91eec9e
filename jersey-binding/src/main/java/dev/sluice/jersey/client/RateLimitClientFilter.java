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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
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
 * keys in the store, for every worker sharing it, at most {@link Builder#maxPause} (a longer one is cut to it, and
 * said once per rule at WARNING). Configure a window somewhat longer than the remote's, by the variation in transit
 * time. Thread-safe. See {@code docs/design/adapters.md}.
 */
@ConstrainedTo(RuntimeType.CLIENT)
public final class RateLimitClientFilter implements ClientRequestFilter, ClientResponseFilter {

    private static final String KEYS_PROPERTY = RateLimitClientFilter.class.getName() + ".keys";

    /** The longest pause a remote's {@code Retry-After} makes unless set: 1 hour. */
    public static final Duration DEFAULT_MAX_PAUSE = Duration.ofHours(1);

    /** The longest {@link Builder#maxPause}: 1 day. */
    public static final Duration MAX_PAUSE = Duration.ofDays(1);

    private static final String MAX_PAUSE_TEXT = "1 day";
    private static final Pattern DIGITS = Pattern.compile("[0-9]+");
    /** Digits of the longest number of seconds read as such: more may not fit a {@code long}. */
    private static final int MAX_LONG_DIGITS = 18;

    private static final System.Logger LOG = System.getLogger(RateLimitClientFilter.class.getName());

    private final List<LimitedRule> rules;
    private final RemotePauses pauses;
    private final TimeSource time;
    private final Duration maxWait;
    private final Duration maxPause;
    /** The rules whose pause was cut to {@link #maxPause}, each said once; and those whose pause failed. */
    private final Set<String> cutRules = ConcurrentHashMap.newKeySet();
    private final Set<String> failedRules = ConcurrentHashMap.newKeySet();

    private RateLimitClientFilter(Builder builder) {
        this.time = builder.time;
        this.maxWait = builder.maxWait;
        this.maxPause = builder.maxPause;
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
        retryAfter(response.getHeaderString("Retry-After"), time.nanos()).ifPresent(asked -> {
            for (Object entry : counted) {
                Counted key = (Counted) entry;
                pause(key, asked);
            }
        });
    }

    /**
     * Pauses {@code key} as the remote {@code asked}, at most {@link #maxPause}; a cut pause, and a pause the store
     * could not record, are said once per rule, naming the rule and never the key (its host and path).
     */
    private void pause(Counted key, Duration asked) {
        String rule = key.rule().id();
        Duration pause = asked;
        if (asked.compareTo(maxPause) > 0) {
            pause = maxPause;
            if (cutRules.add(rule)) {
                LOG.log(System.Logger.Level.WARNING, "Sluice: a remote answered a call of client rule ''{0}'' 429 with"
                        + " a Retry-After of {1} s; its calls pause for maxPause, {2} s, instead (said once per rule)",
                        rule, String.valueOf(asked.getSeconds()), String.valueOf(maxPause.getSeconds()));
            }
        }
        try {
            pauses.pause(key.key(), rule, pause);
        } catch (RuntimeException e) {
            // The response came: a store that cannot record the pause must not fail the call that brought it.
            if (failedRules.add(rule)) {
                LOG.log(System.Logger.Level.WARNING, "Sluice: the pause a remote asked for, for client rule ''{0}'', "
                        + "could not be recorded in the store ({1}); its calls go on unpaused (said once per rule)",
                        rule, e.getClass().getName());
            }
        }
    }

    /**
     * A {@code Retry-After} value (delay-seconds or an HTTP date) as a positive wait from {@code nowEpochNanos}
     * (nanoseconds since the Unix epoch); empty when absent, invalid or not in the future. Seconds past a
     * {@code long} read as the longest duration: the filter cuts every wait to its maximum pause anyway.
     */
    static Optional<Duration> retryAfter(@Nullable String value, long nowEpochNanos) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String text = value.trim();
        Duration wait;
        if (DIGITS.matcher(text).matches()) {
            wait = text.length() > MAX_LONG_DIGITS ? Duration.ofSeconds(Long.MAX_VALUE)
                    : Duration.ofSeconds(Long.parseLong(text));
        } else {
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
        private Duration maxPause = DEFAULT_MAX_PAUSE;

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
         * The longest a remote's {@code 429} pauses the calls of its keys: a longer {@code Retry-After} (seconds or an
         * HTTP date) pauses them this long, said once per rule at WARNING; more than zero, at most 1 day
         * ({@link RateLimitClientFilter#MAX_PAUSE}); default 1 hour. The remote answers calls sent after it with
         * another 429 if its limit still holds, and the pause starts again.
         */
        public Builder maxPause(Duration pause) {
            if (pause.isNegative() || pause.isZero() || pause.compareTo(MAX_PAUSE) > 0) {
                throw new IllegalArgumentException("maxPause must be more than zero and at most " + MAX_PAUSE_TEXT
                        + ", got " + pause);
            }
            this.maxPause = pause;
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
