package dev.sluice.servlet;

import dev.sluice.TimeSource;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.http.HeaderStyle;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.rules.Rule;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.store.CounterStore;
import dev.sluice.store.CounterStoreProvider;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.RejectionCachingStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link RateLimitFilter} is set up: from {@code web.xml} init-params ({@link #fromInitParameters}, which lists
 * them) or in code ({@link #builder()}). Immutable and thread-safe (given a thread-safe store settings function).
 *
 * <p>The store comes from a plug-in point, never named here: a {@link CounterStore} given in code
 * ({@link Builder#store}), the built-in {@code local} store, or a {@link CounterStoreProvider} named by the
 * {@code store} init-param ({@code hazelcast} and {@code hazelcast-client} come with
 * {@code dev.sluice:sluice-hazelcast}), or the class name of the application's own provider. A provider's store and a
 * given store are bounded by the failure policy, timeout and rejection cache ({@code CounterStores}), the defaults
 * unless set, but for a given store already behind a failure policy or deciding in this JVM. See
 * {@code docs/design/adapters.md}.
 *
 * <p>A filter's init-params are its own: every name must be one of {@link #INIT_PARAMS} or one the store provider
 * says it takes ({@link CounterStoreProvider#settingNames()}), else the filter does not start, naming the unknown
 * init-param and the nearest known one. Settings of the application's own belong in context params.
 */
public final class FilterSettings {

    /** The name of the built-in store provider, counting in this JVM: {@value}. */
    public static final String LOCAL_STORE = "local";

    private final @Nullable String rules;
    private final Duration rulesReloadInterval;
    private final @Nullable CounterStore store;
    private final String storeProvider;
    private final Function<String, @Nullable String> storeSettings;
    private final TimeSource timeSource;
    private final FailurePolicyStore.OnFailure failurePolicy;
    private final Duration storeTimeout;
    private final HeaderStyle headerStyle;
    private final @Nullable List<String> trustedProxies;
    private final ClientAddresses.Header clientAddressHeader;
    private final OptionalInt ipv6Prefix;
    private final long maxKeys;
    private final int rejectionCache;
    private final boolean boundsSet;
    private final @Nullable String namespace;
    private final DecisionMetrics metrics;
    private final List<Rule> annotationRules;
    private final RequestRoutes routes;
    private final Set<String> storeSettingNames;

    private FilterSettings(Builder builder) {
        this.rules = builder.rules;
        this.rulesReloadInterval = builder.rulesReloadInterval;
        this.store = builder.store;
        this.storeProvider = builder.storeProvider;
        this.storeSettings = builder.storeSettings;
        this.timeSource = builder.timeSource;
        this.failurePolicy = builder.failurePolicy;
        this.storeTimeout = builder.storeTimeout;
        this.headerStyle = builder.headerStyle;
        this.trustedProxies = builder.trustedProxies == null ? null : List.copyOf(builder.trustedProxies);
        this.clientAddressHeader = builder.clientAddressHeader;
        this.ipv6Prefix = builder.ipv6Prefix;
        this.maxKeys = builder.maxKeys;
        this.rejectionCache = builder.rejectionCache;
        this.boundsSet = builder.boundsSet;
        this.namespace = builder.namespace;
        this.metrics = builder.metrics;
        this.annotationRules = builder.annotationRules;
        this.routes = builder.routes;
        this.storeSettingNames = builder.storeSettingNames;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The names of the filter's own init-params, as the class comment lists them. */
    public static final List<String> INIT_PARAMS = List.of("rules", "rules-reload-interval", "store",
            "failure-policy", "store-timeout", "header-style", "trusted-proxies", "client-address-header",
            "ipv6-prefix", "max-keys", "rejection-cache", "namespace", "metrics");

    /**
     * Reads these init-params ({@link #INIT_PARAMS}); the filter refuses, when it starts, other names its store
     * provider does not take.
     *
     * <table>
     *   <caption>init-params</caption>
     *   <tr><th>name</th><th>form</th><th>default</th></tr>
     *   <tr><td>{@code rules}</td><td>{@code classpath:sluice-rules.json}, {@code file:/etc/app/rules.json} or a web
     *       application path such as {@code /WEB-INF/sluice-rules.json}</td><td>no rules (nothing is limited)</td></tr>
     *   <tr><td>{@code rules-reload-interval}</td><td>a duration ({@code 5s}); {@code 0} turns reloading off; only
     *       files on disk are reloaded</td><td>{@code 5s}</td></tr>
     *   <tr><td>{@code store}</td><td>{@code local}, the name of a store provider on the class path such as
     *       {@code hazelcast} (an embedded member) or {@code hazelcast-client}, or the class name of a
     *       {@link CounterStoreProvider}; the provider's own init-params go to it</td><td>{@code local}</td></tr>
     *   <tr><td>{@code failure-policy}</td><td>{@code local} (each instance counts on a local store of its own while
     *       the store fails or is slower than {@code store-timeout}: at most instances x limit per window across the
     *       application), {@code reject}, or {@code allow} (requests pass uncounted)</td><td>{@code local}</td></tr>
     *   <tr><td>{@code store-timeout}</td><td>a duration</td><td>{@code 100ms}</td></tr>
     *   <tr><td>{@code rejection-cache}</td><td>how many rejections of a provider's store this instance repeats itself
     *       until their retry-after ({@link RejectionCachingStore}); {@code 0} turns it off</td>
     *       <td>{@link RejectionCachingStore#DEFAULT_MAX_ENTRIES}</td></tr>
     *   <tr><td>{@code header-style}</td><td>{@code both}, {@code draft}, {@code legacy} or {@code none}</td>
     *       <td>{@code both}</td></tr>
     *   <tr><td>{@code trusted-proxies}</td><td>comma-separated IPs and CIDRs whose forwarding headers are believed
     *       </td><td>the rules file's, else none</td></tr>
     *   <tr><td>{@code client-address-header}</td><td>{@code x-forwarded-for} or {@code forwarded} (RFC 7239): where
     *       a trusted proxy names the client</td><td>{@code x-forwarded-for}</td></tr>
     *   <tr><td>{@code ipv6-prefix}</td><td>the leading bits of an IPv6 client's address that are its key, 1 to 128
     *       (128: the whole address)</td><td>the rules file's, else {@value ClientAddresses#DEFAULT_IPV6_PREFIX}</td>
     *       </tr>
     *   <tr><td>{@code max-keys}</td><td>keys the local store holds at most</td>
     *       <td>{@link LocalCounterStore#DEFAULT_MAX_KEYS}</td></tr>
     *   <tr><td>{@code metrics}</td><td>{@code none}, or {@code micrometer}: decision counters and a timer on
     *       Micrometer's global registry (Micrometer must be on the classpath)</td><td>{@code none}</td></tr>
     *   <tr><td>{@code namespace}</td><td>separates the counters of applications sharing one cluster</td>
     *       <td>the context path</td></tr>
     * </table>
     *
     * @param initParameter the value of an init-param, or null when it is not set
     * @throws IllegalArgumentException naming the init-param and the expected form, for a value that is not
     */
    public static FilterSettings fromInitParameters(Function<String, @Nullable String> initParameter) {
        return InitParameters.read(initParameter);
    }

    /** The rules location; null for none (the filter then limits nothing). */
    public @Nullable String rules() {
        return rules;
    }

    public Duration rulesReloadInterval() {
        return rulesReloadInterval;
    }

    /** The store given in code, counted in instead of a provider's ({@link Builder#store}); its owner closes it. */
    public Optional<CounterStore> store() {
        return Optional.ofNullable(store);
    }

    /**
     * The store provider to open the store with when none is given: {@value #LOCAL_STORE}, a provider's
     * {@link CounterStoreProvider#name() name}, or a provider's class name.
     */
    public String storeProvider() {
        return storeProvider;
    }

    /** The provider's settings by name: the text, or null when not set (from {@code web.xml}, every init-param). */
    public Function<String, @Nullable String> storeSettings() {
        return storeSettings;
    }

    /**
     * The names of the provider's settings when they were given as a map ({@link Builder#storeProvider(String, Map)}),
     * which the filter checks at start as it checks init-params; none otherwise.
     */
    public Set<String> storeSettingNames() {
        return storeSettingNames;
    }

    /** The time the filter's local stores decide by and its store provider is given. */
    public TimeSource timeSource() {
        return timeSource;
    }

    public FailurePolicyStore.OnFailure failurePolicy() {
        return failurePolicy;
    }

    public Duration storeTimeout() {
        return storeTimeout;
    }

    public HeaderStyle headerStyle() {
        return headerStyle;
    }

    /** The trusted proxies; null to take the rules file's. */
    public @Nullable List<String> trustedProxies() {
        return trustedProxies;
    }

    /** The header a trusted proxy names the client in. */
    public ClientAddresses.Header clientAddressHeader() {
        return clientAddressHeader;
    }

    /** The leading bits of an IPv6 client's address that are its key; empty for the rules file's. */
    public OptionalInt ipv6Prefix() {
        return ipv6Prefix;
    }

    /** Keys a local store (the store, or the failure policy's fallback) holds at most. */
    public long maxKeys() {
        return maxKeys;
    }

    /**
     * How many rejections of a provider's store are repeated here until their retry-after, sparing the cluster the
     * calls of clients over their limits; 0 for none.
     */
    public int rejectionCache() {
        return rejectionCache;
    }

    /** Whether a failure policy, store timeout or rejection cache was set, not left to its default. */
    boolean boundsSet() {
        return boundsSet;
    }

    /** Rules from annotations, merged with the rules file's on every load ({@link Builder#annotated}). */
    public List<Rule> annotationRules() {
        return annotationRules;
    }

    /** Where the application routes a request, for the annotation rules ({@link Builder#annotated}). */
    public RequestRoutes routes() {
        return routes;
    }

    /** The namespace; if empty, the context path. */
    public Optional<String> namespace() {
        return Optional.ofNullable(namespace);
    }

    /** Where decisions are reported. */
    public DecisionMetrics metrics() {
        return metrics;
    }

    /** Builds {@link FilterSettings}; every value is checked when set. Not thread-safe. */
    public static final class Builder {
        private @Nullable String rules;
        private Duration rulesReloadInterval = ReloadingRuleSet.DEFAULT_RELOAD_INTERVAL;
        private @Nullable CounterStore store;
        private String storeProvider = LOCAL_STORE;
        private boolean storeProviderSet;
        private Function<String, @Nullable String> storeSettings = name -> null;
        private TimeSource timeSource = TimeSource.system();
        private FailurePolicyStore.OnFailure failurePolicy = FailurePolicyStore.OnFailure.LOCAL;
        private Duration storeTimeout = FailurePolicyStore.DEFAULT_TIMEOUT;
        private HeaderStyle headerStyle = HeaderStyle.BOTH;
        private @Nullable List<String> trustedProxies;
        private ClientAddresses.Header clientAddressHeader = ClientAddresses.Header.X_FORWARDED_FOR;
        private OptionalInt ipv6Prefix = OptionalInt.empty();
        private long maxKeys = LocalCounterStore.DEFAULT_MAX_KEYS;
        private int rejectionCache = RejectionCachingStore.DEFAULT_MAX_ENTRIES;
        /** Whether the failure policy, the store timeout or the rejection cache was set. */
        private boolean boundsSet;
        private @Nullable String namespace;
        private DecisionMetrics metrics = DecisionMetrics.NONE;
        private List<Rule> annotationRules = List.of();
        private RequestRoutes routes = RequestRoutes.NONE;
        private Set<String> storeSettingNames = Set.of();

        private Builder() {
        }

        public Builder rules(String location) {
            this.rules = Objects.requireNonNull(location, "rules");
            return this;
        }

        public Builder rulesReloadInterval(Duration interval) {
            if (interval.isNegative()) {
                throw new IllegalArgumentException("must not be negative");
            }
            this.rulesReloadInterval = interval;
            return this;
        }

        /**
         * The store to count in, such as a Hazelcast store on the application's own instance; the filter never closes
         * it. The filter bounds it as it bounds a provider's store: behind {@link #failurePolicy},
         * {@link #storeTimeout} and {@link #rejectionCache} (their defaults unless set: {@code local}, 100 ms, 100,000)
         * and {@link #metrics}, and its start line says so. Used as it is when none of the three is set and the store
         * is already composed ({@code CounterStores.of(store)...build()}, a {@link FailurePolicyStore}) or decides in
         * this JVM (its {@link dev.sluice.store.StoreServices#health health} mode is {@code local}, as a {@link
         * LocalCounterStore}'s is). Excludes {@link #storeProvider}.
         */
        public Builder store(CounterStore counterStore) {
            this.store = Objects.requireNonNull(counterStore, "store");
            return this;
        }

        /**
         * The store provider that opens the store when the filter starts: {@value FilterSettings#LOCAL_STORE} (the
         * default), the {@link CounterStoreProvider#name() name} of a provider on the class path, or the class name
         * of one; the filter bounds and closes the store it opens. Excludes {@link #store}.
         *
         * @param settings the provider's settings by name, such as
         *     {@code Map.of("hazelcast-members", "10.0.0.1,10.0.0.2")::get}
         */
        public Builder storeProvider(String name, Function<String, @Nullable String> settings) {
            if (name.isBlank()) {
                throw new IllegalArgumentException("store provider name must not be blank");
            }
            this.storeProvider = name;
            this.storeSettings = Objects.requireNonNull(settings, "settings");
            this.storeProviderSet = true;
            this.storeSettingNames = Set.of();
            return this;
        }

        /**
         * As {@link #storeProvider(String, Function)}, with the provider's settings in a map: the filter refuses, when
         * it starts, a name the provider does not take, naming the nearest one, as it refuses an unknown init-param.
         */
        public Builder storeProvider(String name, Map<String, String> settings) {
            Map<String, String> copy = Map.copyOf(settings);
            storeProvider(name, copy::get);
            this.storeSettingNames = copy.keySet();
            return this;
        }

        /**
         * Rules from {@code @RateLimited} annotations ({@code AnnotationRules}), merged with the rules file's on every
         * load as the Jersey binding merges them (a file rule of the same id replaces an annotation's limits); they
         * match the requests {@code routes} routes to their methods.
         */
        public Builder annotated(Collection<Rule> rules, RequestRoutes requestRoutes) {
            this.annotationRules = List.copyOf(rules);
            this.routes = Objects.requireNonNull(requestRoutes, "routes");
            return this;
        }

        /**
         * The time the filter's local stores decide by and its store provider is given (default the system's); a
         * store given in code keeps its own. Requests held for their slot wait in real time. For tests.
         */
        public Builder timeSource(TimeSource time) {
            this.timeSource = Objects.requireNonNull(time, "timeSource");
            return this;
        }

        /**
         * What decides while a provider's store fails or is slower than {@link #storeTimeout}: by default
         * {@link FailurePolicyStore.OnFailure#LOCAL} ({@code local}), each instance counting on its own, so at most
         * instances x limit per window pass; {@link FailurePolicyStore.OnFailure#ALLOW} lets requests through
         * uncounted.
         */
        public Builder failurePolicy(FailurePolicyStore.OnFailure policy) {
            this.failurePolicy = Objects.requireNonNull(policy, "failurePolicy");
            this.boundsSet = true;
            return this;
        }

        public Builder storeTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("must be positive");
            }
            this.storeTimeout = timeout;
            this.boundsSet = true;
            return this;
        }

        public Builder headerStyle(HeaderStyle style) {
            this.headerStyle = Objects.requireNonNull(style, "headerStyle");
            return this;
        }

        public Builder trustedProxies(List<String> addresses) {
            this.trustedProxies = List.copyOf(addresses);
            return this;
        }

        public Builder clientAddressHeader(ClientAddresses.Header header) {
            this.clientAddressHeader = Objects.requireNonNull(header, "clientAddressHeader");
            return this;
        }

        /**
         * Keys an IPv6 client by the first {@code bits} bits of its address, 1 to 128 (128: the whole address),
         * instead of as the rules file says ({@code clientAddress.ipv6Prefix}, by default 64).
         */
        public Builder ipv6Prefix(int bits) {
            if (bits < 1 || bits > ClientAddresses.MAX_IPV6_PREFIX) {
                throw new IllegalArgumentException("must be from 1 to " + ClientAddresses.MAX_IPV6_PREFIX);
            }
            this.ipv6Prefix = OptionalInt.of(bits);
            return this;
        }

        public Builder maxKeys(long max) {
            if (max < 1) {
                throw new IllegalArgumentException("must be positive");
            }
            this.maxKeys = max;
            return this;
        }

        /** How many rejections to repeat without a call to a provider's store; 0 for none. */
        public Builder rejectionCache(int maxEntries) {
            if (maxEntries < 0) {
                throw new IllegalArgumentException("must not be negative");
            }
            this.rejectionCache = maxEntries;
            this.boundsSet = true;
            return this;
        }

        public Builder namespace(String name) {
            this.namespace = Objects.requireNonNull(name, "namespace");
            return this;
        }

        /** Where decisions are reported, such as {@code new MicrometerDecisionMetrics(registry)}. */
        public Builder metrics(DecisionMetrics decisionMetrics) {
            this.metrics = Objects.requireNonNull(decisionMetrics, "metrics");
            return this;
        }

        /**
         * The settings.
         *
         * @throws IllegalArgumentException if both a store and a store provider are given, or a store already behind a
         *     failure policy with a failure policy, store timeout or rejection cache beside it
         */
        public FilterSettings build() {
            if (store != null && storeProviderSet) {
                throw new IllegalArgumentException("store and storeProvider both given: give one");
            }
            if (store instanceof FailurePolicyStore && boundsSet) {
                throw new IllegalArgumentException("the store given is already behind a failure policy, so"
                        + " failurePolicy, storeTimeout and rejectionCache cannot bound it again: give a bare store"
                        + " with them, or compose the store with all of them in one place, CounterStores.of(store)"
                        + ".rejectionCache(n).timeout(d).onFailure(policy).build(), and give that alone");
            }
            return new FilterSettings(this);
        }
    }
}
