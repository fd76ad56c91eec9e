package dev.sluice.spring.boot;

import dev.sluice.http.HeaderStyle;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.store.FailurePolicyStore.OnFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Sluice's settings under {@code sluice.*}: the servlet filter's init-params in Spring's kebab-case (see
 * {@code docs/filter.md}), durations as {@link Duration}s ({@code 100ms}, {@code 5s}), and what only a Spring
 * application has: where the filter goes among the application's filters, the store it finds, the console. A
 * {@code sluice.*} name that is none of these stops the start, naming the nearest one. Mutable, for binding only; not
 * thread-safe.
 */
@ConfigurationProperties("sluice")
public class SluiceProperties {

    /** The name of the default store choice: {@value}. */
    public static final String AUTO_STORE = "auto";

    /** The name of the store choice that counts in the application's HazelcastInstance bean: {@value}. */
    public static final String HAZELCAST_INSTANCE_STORE = "hazelcast-instance";

    /** Whether Sluice limits requests at all. */
    private boolean enabled = true;

    /**
     * Where the rules file is: classpath:sluice-rules.json, file:/etc/app/rules.json, or a path on disk. Default:
     * classpath:sluice-rules.json when the application has that resource, else none (only @RateLimited handlers are
     * limited). A location given that holds nothing stops the start.
     */
    private @Nullable String rules;

    /** How often a rules file on disk is checked for changes; 0 turns reloading off. */
    private Duration rulesReloadInterval = Duration.ofSeconds(5);

    /**
     * Where counters live: auto (the application's HazelcastInstance bean, or a CounterStore bean of its own, when it
     * has one, else this JVM), local, hazelcast-instance (the HazelcastInstance bean, which must exist), or a store
     * provider the filter takes (hazelcast, hazelcast-client, or the class name of a CounterStoreProvider), set up by
     * sluice.store-settings.
     */
    private String store = AUTO_STORE;

    /**
     * The store provider's settings, by the filter's init-param names, such as hazelcast-members; only with a
     * provider named by sluice.store.
     */
    private Map<String, String> storeSettings = new LinkedHashMap<>();

    /**
     * What decides while the store fails or is slower than sluice.store-timeout: local (each instance counts on its
     * own: at most instances x limit per window), reject (503), or allow (requests pass uncounted).
     */
    private OnFailure failurePolicy = OnFailure.LOCAL;

    /** The longest a request waits for the store before the failure policy decides it. */
    private Duration storeTimeout = Duration.ofMillis(100);

    /**
     * How many rejections of a remote store this instance repeats itself until their retry-after; 0 for none. (The
     * defaults of this and sluice.max-keys are the filter's, RejectionCachingStore.DEFAULT_MAX_ENTRIES and
     * LocalCounterStore.DEFAULT_MAX_KEYS, written out for the configuration metadata.)
     */
    private int rejectionCache = 100_000;

    /** Which rate-limit headers answers carry: both, draft (RateLimit-Policy, RateLimit), legacy, or none. */
    private HeaderStyle headerStyle = HeaderStyle.BOTH;

    /**
     * IPs and CIDRs of the proxies whose forwarding header names the client (replacing the rules file's); empty for
     * the rules file's.
     */
    private List<String> trustedProxies = new ArrayList<>();

    /** Where a trusted proxy names the client: x-forwarded-for, or forwarded (RFC 7239). */
    private ClientAddresses.Header clientAddressHeader = ClientAddresses.Header.X_FORWARDED_FOR;

    /**
     * The leading bits of an IPv6 client's address that are its key, 1 to 128 (128: the whole address); unset for the
     * rules file's, else 64.
     */
    private @Nullable Integer ipv6Prefix;

    /** Keys a local store (the store, or the failure policy's fallback) holds at most. */
    private long maxKeys = 1_000_000;

    /**
     * What separates this application's counters from those of other applications sharing the cluster. Default: the
     * context path (server.servlet.context-path), / when it has none.
     */
    private @Nullable String namespace;

    /**
     * Where decisions are counted: micrometer (the application's MeterRegistry, when it has one) or none.
     */
    private Metrics metrics = Metrics.MICROMETER;

    /**
     * The filter's order among the application's servlet filters. Default: right after Spring Security's filter chain
     * (spring.security.filter.order + 1, so -99 by default), so that a rule keyed by principal sees the authenticated
     * user.
     */
    private @Nullable Integer filterOrder;

    /** The URL patterns the filter is mapped to. */
    private List<String> urlPatterns = List.of("/*");

    /** The cluster's console: mounted with sluice-console and Jersey on the class path and a token or role set. */
    private final Console console = new Console();

    /**
     * A second registration of the filter, before Spring Security's filter chain, with rules of its own: counts what
     * Spring Security answers itself (failed logins, 401s), which the filter after the chain never sees.
     */
    private final BeforeSecurity beforeSecurity = new BeforeSecurity();

    /** The settings of the filter before Spring Security's chain, under {@code sluice.before-security.*}. */
    public static class BeforeSecurity {

        /**
         * The rules file of the filter before Spring Security's filter chain (classpath:..., file:... or a path on
         * disk): requests are counted there before any login is checked, so keyed by client address. Unset: no such
         * filter.
         */
        private @Nullable String rules;

        public @Nullable String getRules() {
            return rules;
        }

        public void setRules(@Nullable String rules) {
            this.rules = rules;
        }
    }

    public BeforeSecurity getBeforeSecurity() {
        return beforeSecurity;
    }

    /** Where decision metrics go. */
    public enum Metrics {
        /** Sluice's meters on the application's MeterRegistry, when it has one. */
        MICROMETER,
        /** No metrics. */
        NONE
    }

    /** The console's settings under {@code sluice.console.*}. */
    public static class Console {

        /**
         * The bearer token that opens the console's JSON API, at least 16 characters. The console mounts when this or
         * sluice.console.role is set.
         */
        private @Nullable String token;

        /** The role (of Spring Security, or the container's) that opens the console's JSON API. */
        private @Nullable String role;

        /** Where the console's JAX-RS application is mounted; the page is at its console/. */
        private String path = "/sluice";

        public @Nullable String getToken() {
            return token;
        }

        public void setToken(@Nullable String token) {
            this.token = token;
        }

        public @Nullable String getRole() {
            return role;
        }

        public void setRole(@Nullable String role) {
            this.role = role;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public @Nullable String getRules() {
        return rules;
    }

    public void setRules(@Nullable String rules) {
        this.rules = rules;
    }

    public Duration getRulesReloadInterval() {
        return rulesReloadInterval;
    }

    public void setRulesReloadInterval(Duration rulesReloadInterval) {
        this.rulesReloadInterval = rulesReloadInterval;
    }

    public String getStore() {
        return store;
    }

    public void setStore(String store) {
        this.store = store;
    }

    public Map<String, String> getStoreSettings() {
        return storeSettings;
    }

    public void setStoreSettings(Map<String, String> storeSettings) {
        this.storeSettings = storeSettings;
    }

    public OnFailure getFailurePolicy() {
        return failurePolicy;
    }

    public void setFailurePolicy(OnFailure failurePolicy) {
        this.failurePolicy = failurePolicy;
    }

    public Duration getStoreTimeout() {
        return storeTimeout;
    }

    public void setStoreTimeout(Duration storeTimeout) {
        this.storeTimeout = storeTimeout;
    }

    public int getRejectionCache() {
        return rejectionCache;
    }

    public void setRejectionCache(int rejectionCache) {
        this.rejectionCache = rejectionCache;
    }

    public HeaderStyle getHeaderStyle() {
        return headerStyle;
    }

    public void setHeaderStyle(HeaderStyle headerStyle) {
        this.headerStyle = headerStyle;
    }

    public List<String> getTrustedProxies() {
        return trustedProxies;
    }

    public void setTrustedProxies(List<String> trustedProxies) {
        this.trustedProxies = trustedProxies;
    }

    public ClientAddresses.Header getClientAddressHeader() {
        return clientAddressHeader;
    }

    public void setClientAddressHeader(ClientAddresses.Header clientAddressHeader) {
        this.clientAddressHeader = clientAddressHeader;
    }

    public @Nullable Integer getIpv6Prefix() {
        return ipv6Prefix;
    }

    public void setIpv6Prefix(@Nullable Integer ipv6Prefix) {
        this.ipv6Prefix = ipv6Prefix;
    }

    public long getMaxKeys() {
        return maxKeys;
    }

    public void setMaxKeys(long maxKeys) {
        this.maxKeys = maxKeys;
    }

    public @Nullable String getNamespace() {
        return namespace;
    }

    public void setNamespace(@Nullable String namespace) {
        this.namespace = namespace;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public void setMetrics(Metrics metrics) {
        this.metrics = metrics;
    }

    public @Nullable Integer getFilterOrder() {
        return filterOrder;
    }

    public void setFilterOrder(@Nullable Integer filterOrder) {
        this.filterOrder = filterOrder;
    }

    public List<String> getUrlPatterns() {
        return urlPatterns;
    }

    public void setUrlPatterns(List<String> urlPatterns) {
        this.urlPatterns = urlPatterns;
    }

    public Console getConsole() {
        return console;
    }
}
