package dev.sluice.servlet;

import dev.sluice.http.HeaderStyle;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.metrics.MicrometerDecisionMetrics;
import dev.sluice.rules.ClientAddresses;
import dev.sluice.rules.DurationText;
import dev.sluice.rules.ReloadingRuleSet;
import dev.sluice.store.FailurePolicyStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * How a {@link RateLimitFilter} is set up: from {@code web.xml} init-params ({@link #fromInitParameters}) or in code
 * ({@link #builder()}). Immutable and thread-safe.
 *
 * <table>
 *   <caption>init-params</caption>
 *   <tr><th>name</th><th>form</th><th>default</th></tr>
 *   <tr><td>{@code rules}</td><td>{@code classpath:sluice-rules.json}, {@code file:/etc/app/rules.json} or a web
 *       application path such as {@code /WEB-INF/sluice-rules.json}</td><td>no rules (nothing is limited)</td></tr>
 *   <tr><td>{@code rules-reload-interval}</td><td>a duration ({@code 5s}); {@code 0} turns reloading off; only files
 *       on disk are reloaded</td><td>{@code 5s}</td></tr>
 *   <tr><td>{@code store}</td><td>{@code local}, {@code hazelcast} (an embedded member) or {@code hazelcast-client}
 *       </td><td>{@code local}</td></tr>
 *   <tr><td>{@code hazelcast-config}</td><td>a Hazelcast member (or, with {@code hazelcast-client}, client) YAML or
 *       XML file, used instead of the simple settings below</td><td>none</td></tr>
 *   <tr><td>{@code hazelcast-cluster-name}</td><td>a name</td><td>{@code sluice}</td></tr>
 *   <tr><td>{@code hazelcast-members}</td><td>comma-separated {@code host:port} list for TCP-IP join</td>
 *       <td>{@code 127.0.0.1}</td></tr>
 *   <tr><td>{@code hazelcast-port}</td><td>the member's port (1 to 65535)</td><td>{@code 5701}, next free</td></tr>
 *   <tr><td>{@code hazelcast-interface}</td><td>the address the member binds to</td><td>{@code 127.0.0.1}</td></tr>
 *   <tr><td>{@code failure-policy}</td><td>{@code allow}, {@code reject} or {@code local} (count on a local store
 *       while the cluster is unreachable)</td><td>{@code allow}</td></tr>
 *   <tr><td>{@code store-timeout}</td><td>a duration</td><td>{@code 100ms}</td></tr>
 *   <tr><td>{@code header-style}</td><td>{@code both}, {@code draft}, {@code legacy} or {@code none}</td>
 *       <td>{@code both}</td></tr>
 *   <tr><td>{@code trusted-proxies}</td><td>comma-separated IPs and CIDRs whose forwarding headers are believed
 *       </td><td>the rules file's, else none</td></tr>
 *   <tr><td>{@code client-address-header}</td><td>{@code x-forwarded-for} or {@code forwarded} (RFC 7239): where
 *       a trusted proxy names the client</td><td>{@code x-forwarded-for}</td></tr>
 *   <tr><td>{@code max-keys}</td><td>keys the local store holds at most</td><td>{@code 1000000}</td></tr>
 *   <tr><td>{@code metrics}</td><td>{@code none}, or {@code micrometer}: decision counters and a timer on
 *       Micrometer's global registry (Micrometer must be on the classpath)</td><td>{@code none}</td></tr>
 *   <tr><td>{@code namespace}</td><td>separates the counters of applications sharing one cluster</td>
 *       <td>the context path</td></tr>
 * </table>
 */
public final class FilterSettings {

    /** Where counters live. */
    public enum StoreKind {
        LOCAL, HAZELCAST, HAZELCAST_CLIENT;

        String text() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private final String rules;
    private final Duration rulesReloadInterval;
    private final StoreKind store;
    private final String hazelcastConfig;
    private final String clusterName;
    private final List<String> members;
    private final int port;
    private final String bindInterface;
    private final FailurePolicyStore.OnFailure failurePolicy;
    private final Duration storeTimeout;
    private final HeaderStyle headerStyle;
    private final List<String> trustedProxies;
    private final ClientAddresses.Header clientAddressHeader;
    private final long maxKeys;
    private final String namespace;
    private final DecisionMetrics metrics;

    private FilterSettings(Builder builder) {
        this.rules = builder.rules;
        this.rulesReloadInterval = builder.rulesReloadInterval;
        this.store = builder.store;
        this.hazelcastConfig = builder.hazelcastConfig;
        this.clusterName = builder.clusterName;
        this.members = List.copyOf(builder.members);
        this.port = builder.port;
        this.bindInterface = builder.bindInterface;
        this.failurePolicy = builder.failurePolicy;
        this.storeTimeout = builder.storeTimeout;
        this.headerStyle = builder.headerStyle;
        this.trustedProxies = builder.trustedProxies == null ? null : List.copyOf(builder.trustedProxies);
        this.clientAddressHeader = builder.clientAddressHeader;
        this.maxKeys = builder.maxKeys;
        this.namespace = builder.namespace;
        this.metrics = builder.metrics;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads the init-params named in the class comment; unknown names are ignored (they may belong to the
     * container).
     *
     * @throws IllegalArgumentException naming the init-param and the expected form, for a value that is not
     */
    public static FilterSettings fromInitParameters(Function<String, String> initParameter) {
        Builder builder = builder();
        Params params = new Params(initParameter);
        params.with("rules", value -> builder.rules(value), "a location such as classpath:sluice-rules.json");
        params.with("rules-reload-interval", value -> builder.rulesReloadInterval(duration(value)), DURATION);
        params.with("store", value -> builder.store(choice(value, StoreKind.values(), StoreKind::text)),
                "one of local, hazelcast, hazelcast-client");
        params.with("hazelcast-config", builder::hazelcastConfig, "a Hazelcast YAML or XML file");
        params.with("hazelcast-cluster-name", builder::clusterName, "a cluster name");
        params.with("hazelcast-members", value -> builder.members(list(value)), "a comma-separated host:port list");
        params.with("hazelcast-port", value -> builder.port(Integer.parseInt(value.trim())), "a port from 1 to 65535");
        params.with("hazelcast-interface", builder::bindInterface, "an address such as 127.0.0.1");
        params.with("failure-policy", value -> builder.failurePolicy(choice(value, FailurePolicyStore.OnFailure.values(),
                FilterSettings::failurePolicyText)), "one of allow, reject, local");
        params.with("store-timeout", value -> builder.storeTimeout(duration(value)), DURATION);
        params.with("header-style", value -> builder.headerStyle(HeaderStyle.parse(value)),
                "one of both, draft, legacy, none");
        params.with("trusted-proxies", value -> builder.trustedProxies(list(value)),
                "a comma-separated list of IP addresses and CIDRs");
        params.with("client-address-header", value -> builder.clientAddressHeader(choice(value,
                ClientAddresses.Header.values(), header -> header.headerName().toLowerCase(Locale.ROOT))),
                "one of x-forwarded-for, forwarded");
        params.with("max-keys", value -> builder.maxKeys(Long.parseLong(value.trim())), "a positive number");
        params.with("namespace", builder::namespace, "a name");
        params.with("metrics", value -> builder.metrics(metrics(value)), "one of none, micrometer");
        return builder.build();
    }

    private static final String DURATION = "a duration such as 100ms, 5s or PT1M";

    private static Duration duration(String text) {
        String value = text.trim();
        Duration parsed = value.equals("0") ? Duration.ZERO : DurationText.parse(value).orElse(null);
        if (parsed == null) {
            throw new IllegalArgumentException(value);
        }
        return parsed;
    }

    private static DecisionMetrics metrics(String value) {
        if (value.trim().equalsIgnoreCase("none")) {
            return DecisionMetrics.NONE;
        }
        if (!value.trim().equalsIgnoreCase("micrometer")) {
            throw new IllegalArgumentException(value);
        }
        try {
            return MicrometerDecisionMetrics.global();
        } catch (LinkageError e) {
            throw new IllegalArgumentException("Micrometer (io.micrometer:micrometer-core) is not on the classpath", e);
        }
    }

    /** {@code allow}, {@code reject}, or {@code local} for a fallback on the local store. */
    private static String failurePolicyText(FailurePolicyStore.OnFailure policy) {
        return policy == FailurePolicyStore.OnFailure.FALLBACK ? "local" : policy.name().toLowerCase(Locale.ROOT);
    }

    private static <T> T choice(String text, T[] values, Function<T, String> name) {
        String wanted = text.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values).filter(value -> name.apply(value).equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(text));
    }

    private static List<String> list(String text) {
        return Arrays.stream(text.split(",")).map(String::trim).filter(item -> !item.isEmpty()).toList();
    }

    /** Reads init-params, turning any failure into a message that names the param and the expected form. */
    private static final class Params {
        private final Function<String, String> source;

        Params(Function<String, String> source) {
            this.source = source;
        }

        void with(String name, java.util.function.Consumer<String> apply, String expected) {
            String value = source.apply(name);
            if (value == null) {
                return;
            }
            try {
                apply.accept(value);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("init-param '" + name + "': expected " + expected + ", got '"
                        + value + "'", e);
            }
        }
    }

    /** The rules location, or null for none. */
    public String rules() {
        return rules;
    }

    public Duration rulesReloadInterval() {
        return rulesReloadInterval;
    }

    public StoreKind store() {
        return store;
    }

    /** The Hazelcast config file, or null to use the simple settings. */
    public String hazelcastConfig() {
        return hazelcastConfig;
    }

    public String clusterName() {
        return clusterName;
    }

    public List<String> members() {
        return members;
    }

    public int port() {
        return port;
    }

    public String bindInterface() {
        return bindInterface;
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

    /** The trusted proxies, or null to take the rules file's. */
    public List<String> trustedProxies() {
        return trustedProxies;
    }

    /** The header a trusted proxy names the client in. */
    public ClientAddresses.Header clientAddressHeader() {
        return clientAddressHeader;
    }

    public long maxKeys() {
        return maxKeys;
    }

    /** The namespace, or null for the context path. */
    public String namespace() {
        return namespace;
    }

    /** Where decisions are reported. */
    public DecisionMetrics metrics() {
        return metrics;
    }

    /** Builds {@link FilterSettings}; every value is checked when set. Not thread-safe. */
    public static final class Builder {
        private String rules;
        private Duration rulesReloadInterval = ReloadingRuleSet.DEFAULT_RELOAD_INTERVAL;
        private StoreKind store = StoreKind.LOCAL;
        private String hazelcastConfig;
        private String clusterName = "sluice";
        private List<String> members = List.of("127.0.0.1");
        private int port = 5701;
        private String bindInterface = "127.0.0.1";
        private FailurePolicyStore.OnFailure failurePolicy = FailurePolicyStore.OnFailure.ALLOW;
        private Duration storeTimeout = FailurePolicyStore.DEFAULT_TIMEOUT;
        private HeaderStyle headerStyle = HeaderStyle.BOTH;
        private List<String> trustedProxies;
        private ClientAddresses.Header clientAddressHeader = ClientAddresses.Header.X_FORWARDED_FOR;
        private long maxKeys = 1_000_000;
        private String namespace;
        private DecisionMetrics metrics = DecisionMetrics.NONE;

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

        public Builder store(StoreKind kind) {
            this.store = Objects.requireNonNull(kind, "store");
            return this;
        }

        public Builder hazelcastConfig(String file) {
            this.hazelcastConfig = Objects.requireNonNull(file, "hazelcastConfig");
            return this;
        }

        public Builder clusterName(String name) {
            this.clusterName = Objects.requireNonNull(name, "clusterName");
            return this;
        }

        public Builder members(List<String> addresses) {
            this.members = List.copyOf(addresses);
            return this;
        }

        public Builder port(int newPort) {
            if (newPort < 1 || newPort > 65_535) {
                throw new IllegalArgumentException("port must be from 1 to 65535, got " + newPort);
            }
            this.port = newPort;
            return this;
        }

        public Builder bindInterface(String address) {
            this.bindInterface = Objects.requireNonNull(address, "bindInterface");
            return this;
        }

        public Builder failurePolicy(FailurePolicyStore.OnFailure policy) {
            this.failurePolicy = Objects.requireNonNull(policy, "failurePolicy");
            return this;
        }

        public Builder storeTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("must be positive");
            }
            this.storeTimeout = timeout;
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

        public Builder maxKeys(long max) {
            if (max < 1) {
                throw new IllegalArgumentException("must be positive");
            }
            this.maxKeys = max;
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

        public FilterSettings build() {
            return new FilterSettings(this);
        }
    }
}
