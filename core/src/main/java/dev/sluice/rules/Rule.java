package dev.sluice.rules;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One rate-limiting rule: which requests it matches, what it counts them by, and the limits they must all pass.
 *
 * <p>A rule matches a request when the request's normalized path matches one of its {@linkplain #paths() path
 * patterns} (or the request was routed to one of its {@linkplain #resourceMethods() resource methods}), its HTTP
 * method is among {@link #methods()} (any when empty) and its host is {@link #host()} (any when null). Its key is
 * resolved from the request; the request is then counted under the policy of its {@linkplain #tierKey() tier}, or the
 * default {@link #policy()}, at {@link #cost()} permits.
 *
 * <p>Counters are named by the rule's id and a fingerprint of the policy, such as {@code login@3f2a9c1b07de|}: after a
 * reload, a rule with the same id and limits keeps counting where it was, and changed limits start afresh. Built by
 * {@link #builder(String)}, which validates every field. Immutable and thread-safe.
 */
public final class Rule {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:#$-]{0,199}");
    private static final int FINGERPRINT_BYTES = 6;
    private static final int FINGERPRINT_HEX_DIGITS = 2 * FINGERPRINT_BYTES;
    private static final Pattern FINGERPRINT = Pattern.compile("[0-9a-f]{" + FINGERPRINT_HEX_DIGITS + "}");

    /** What an id looks like, for messages. */
    static final String ID_EXPECTED = "an id of 1 to 200 letters, digits or ._:#$- starting with a letter or digit";

    /**
     * The longest {@link #maxDelay()}: as long as a period may be. Without a bound, a delay such as "999999999999999h"
     * would be accepted and then overflow when converted to nanoseconds for every request the rule counts.
     */
    private static final Duration MAX_DELAY = Limit.MAX_PERIOD;

    /** What a maxDelay looks like, for messages. */
    static final String MAX_DELAY_EXPECTED = "a maxDelay from 0s to " + MAX_DELAY.toDays() + "d";

    private final String id;
    private final String origin;
    private final JsonTree.Location location;
    private final List<PathPattern> paths;
    private final Set<String> methods;
    private final String host;
    private final Set<Method> resourceMethods;
    private final KeySpec key;
    private final Policy policy;
    private final KeySpec tierKey;
    private final Map<String, Policy> tiers;
    /** The default policy's counter; null for an annotation that only names a JSON rule. */
    private final Counter defaultCounter;
    /** Each tier's counter, by the tier value as a request's key resolves it (escaped and bounded). */
    private final Map<String, Counter> tierCounters;
    private final long cost;
    private final Mode mode;
    private final List<String> exemptAddresses;
    private final CidrSet exemptRanges;
    private final Set<String> exemptKeys;
    /** {@link #exemptKeys} as a request's key resolves them, so they compare equal. */
    private final Set<String> exemptKeyValues;
    private final String fallbackKey;
    /** {@link #fallbackKey} as a counter key part. */
    private final String fallbackKeyValue;
    private final RuleResponse response;
    private final Duration maxDelay;

    private Rule(Builder b) {
        if (!isValidId(b.id)) {
            throw new IllegalArgumentException("expected " + ID_EXPECTED + ", got \"" + b.id + "\"");
        }
        this.id = b.id;
        this.origin = b.origin == null ? "rule '" + b.id + "'" : b.origin;
        this.location = b.location;
        this.paths = b.paths.stream().map(PathPattern::parse).toList();
        this.methods = Set.copyOf(b.methods);
        this.host = b.host == null ? null : normalizeHost(b.host);
        this.resourceMethods = Set.copyOf(b.resourceMethods);
        this.key = Objects.requireNonNull(b.key, "key");
        this.policy = b.limits.isEmpty() ? null : Policy.of(b.algorithm, b.limits);
        Map<String, Policy> tierPolicies = new LinkedHashMap<>();
        b.tiers.forEach((value, limits) -> tierPolicies.put(value, Policy.of(b.algorithm, limits)));
        this.tiers = Map.copyOf(tierPolicies);
        this.tierKey = b.tierKey;
        if ((tierKey == null) != tiers.isEmpty()) {
            throw new IllegalArgumentException(tierKey == null ? "tiers need a key to choose them by"
                    : "a tier key needs at least one tier");
        }
        if (policy == null && !tiers.isEmpty()) {
            throw new IllegalArgumentException("tiers need default limits, for requests of no listed tier");
        }
        this.defaultCounter = policy == null ? null : new Counter(policy, id + "@" + fingerprint(policy) + "|");
        Map<String, Counter> byValue = new LinkedHashMap<>();
        tiers.forEach((value, p) -> byValue.put(asKeyValue(tierKey, value),
                new Counter(p, id + "@" + fingerprint(p) + "|")));
        this.tierCounters = Map.copyOf(byValue);
        this.cost = b.cost;
        for (Policy p : tiers.values()) {
            checkCost(p);
        }
        if (policy != null) {
            checkCost(policy);
        }
        this.mode = Objects.requireNonNull(b.mode, "mode");
        this.exemptAddresses = List.copyOf(b.exemptAddresses);
        this.exemptRanges = CidrSet.parse(exemptAddresses);
        this.exemptKeys = Set.copyOf(b.exemptKeys);
        this.exemptKeyValues = exemptKeys.stream().map(value -> asKeyValue(key, value))
                .collect(Collectors.toUnmodifiableSet());
        if (b.fallbackKey != null && b.fallbackKey.isBlank()) {
            throw new IllegalArgumentException("the fallback key must not be blank");
        }
        this.fallbackKey = b.fallbackKey;
        this.fallbackKeyValue = fallbackKey == null ? null : KeyText.bound(fallbackKey);
        this.response = b.response;
        this.maxDelay = Objects.requireNonNull(b.maxDelay, "maxDelay");
        if (!isValidMaxDelay(maxDelay)) {
            throw new IllegalArgumentException(MAX_DELAY_EXPECTED + ", got " + maxDelay);
        }
    }

    /** A builder for a rule with this id: letters, digits and {@code ._:#$-}, at most 200 characters. */
    public static Builder builder(String id) {
        return new Builder(Objects.requireNonNull(id, "id"));
    }

    static boolean isValidId(String id) {
        return ID.matcher(id).matches();
    }

    static boolean isValidMaxDelay(Duration delay) {
        return !delay.isNegative() && delay.compareTo(MAX_DELAY) <= 0;
    }

    /** The unique id; part of every counter key of the rule. */
    public String id() {
        return id;
    }

    /** Where the rule was defined, for messages: {@code rules.json:12:5} or a class and method. */
    public String origin() {
        return origin;
    }

    /**
     * An error in this rule, found when it is combined with others: located at the rule in its file, so that a rules
     * file error always carries a line and column; for an annotation rule, prefixed by its origin.
     */
    RulesException error(String problem) {
        return location != null ? location.error(problem) : new RulesException(origin + ": " + problem);
    }

    /** The path patterns, such as {@code /api/users/{id}} or {@code /api/**}. */
    public List<String> paths() {
        return paths.stream().map(PathPattern::toString).toList();
    }

    List<PathPattern> pathPatterns() {
        return paths;
    }

    /** The HTTP methods matched, upper case; empty for any. */
    public Set<String> methods() {
        return methods;
    }

    /** The host matched (lower case, no port; {@code *.example.com} for any subdomain), or null for any. */
    public String host() {
        return host;
    }

    /** Resource methods matched (from annotations), whatever their path. */
    public Set<Method> resourceMethods() {
        return resourceMethods;
    }

    /** What requests are counted by. */
    public KeySpec key() {
        return key;
    }

    /** The default policy: the rule's algorithm and limits; null for an annotation that only names a JSON rule. */
    public Policy policy() {
        return policy;
    }

    /** The attribute whose value selects a tier, or null when the rule has no tiers. */
    public KeySpec tierKey() {
        return tierKey;
    }

    /** The policy of each tier, by the tier key's value. */
    public Map<String, Policy> tiers() {
        return tiers;
    }

    /** Permits each request costs, at least 1. */
    public long cost() {
        return cost;
    }

    /** Whether the rule's rejections reject ({@link Mode#ENFORCE}) or are only reported ({@link Mode#SHADOW}). */
    public Mode mode() {
        return mode;
    }

    /** Client addresses and CIDR blocks the rule never counts. */
    public List<String> exemptAddresses() {
        return exemptAddresses;
    }

    /** Key values the rule never counts. */
    public Set<String> exemptKeys() {
        return exemptKeys;
    }

    /** The key counted when the request lacks the key's attribute, or null to skip the rule for such a request. */
    public String fallbackKey() {
        return fallbackKey;
    }

    /** The response of this rule's rejections, or null for the adapter's default. */
    public RuleResponse response() {
        return response;
    }

    /** The longest delay a leaky-bucket rule gives a request before rejecting it instead; zero by default. */
    public Duration maxDelay() {
        return maxDelay;
    }

    /**
     * The id of the rule a counter key ({@code <id>@<fingerprint>|<key>}) belongs to; empty for a key of
     * another shape (an application's own counters in the same store), so that such a key is never taken for an id.
     */
    public static Optional<String> idOfCounterKey(String counterKey) {
        int at = counterKey.indexOf('@');
        int bar = at + 1 + FINGERPRINT_HEX_DIGITS;
        if (at < 0 || counterKey.length() <= bar || counterKey.charAt(bar) != '|'
                || !FINGERPRINT.matcher(counterKey).region(at + 1, bar).matches()) {
            return Optional.empty();
        }
        String id = counterKey.substring(0, at);
        return isValidId(id) ? Optional.of(id) : Optional.empty();
    }

    /** Whether the rule has limits of its own (an annotation naming a JSON rule has not). */
    boolean defined() {
        return policy != null;
    }

    boolean matchesNothing() {
        return paths.isEmpty() && resourceMethods.isEmpty();
    }

    boolean exempts(byte[] clientAddress) {
        return exemptRanges.contains(clientAddress);
    }

    boolean exemptsAddresses() {
        return !exemptRanges.isEmpty();
    }

    /** The counter for a request whose tier key resolved to {@code tierValue} (null when absent). */
    Counter counterFor(String tierValue) {
        Counter tier = tierValue == null ? null : tierCounters.get(tierValue);
        return tier == null ? defaultCounter : tier;
    }

    /** Whether a request whose key resolved to {@code keyValue} is exempt. */
    boolean exemptsKey(String keyValue) {
        return exemptKeyValues.contains(keyValue);
    }

    /** The fallback key as a counter key part, or null. */
    String fallbackKeyValue() {
        return fallbackKeyValue;
    }

    /**
     * A configured key value (an exempt key, a tier value) the way a request's key of {@code spec} resolves: each
     * part escaped and bounded, a composite's parts joined by {@code |}.
     */
    private static String asKeyValue(KeySpec spec, String configured) {
        if (spec.kind() != KeySpec.Kind.COMPOSITE) {
            return KeyText.bound(configured);
        }
        return Arrays.stream(configured.split("\\|", -1)).map(KeyText::bound).collect(Collectors.joining("|"));
    }

    private void checkCost(Policy p) {
        if (cost < 1 || cost > p.capacity()) {
            throw new IllegalArgumentException("cost must be between 1 and the capacity " + p.capacity()
                    + " of the smallest limit, got " + cost);
        }
    }

    /** A policy and the prefix its counter keys take. */
    record Counter(Policy policy, String prefix) {
    }

    /** This rule also matching {@code more} resource methods. */
    Rule withResourceMethods(Collection<Method> more) {
        Builder copy = toBuilder();
        copy.resourceMethods.addAll(more);
        return copy.build();
    }

    /** The default name of a limit of rule {@code id}, in tier {@code tier} (null for none): {@code login:5/1m}. */
    static Limit defaultName(Limit limit, String id, String tier) {
        return limit.named(id + (tier == null ? "" : "." + tier) + ":" + limit.permits() + "/"
                + limit.name().substring(limit.name().indexOf('/') + 1));
    }

    static String normalizeHost(String host) {
        String lower = host.toLowerCase(Locale.ROOT);
        int close = lower.lastIndexOf(']');
        int colon = lower.lastIndexOf(':');
        if (colon > close && lower.indexOf(':') == colon) {
            lower = lower.substring(0, colon);
        } else if (close >= 0 && colon > close) {
            lower = lower.substring(0, colon);
        }
        return lower.endsWith(".") ? lower.substring(0, lower.length() - 1) : lower;
    }

    private static String fingerprint(Policy policy) {
        return HexFormat.of().formatHex(Sha256.of(policy.toString().getBytes(StandardCharsets.UTF_8)), 0,
                FINGERPRINT_BYTES);
    }

    private Builder toBuilder() {
        Builder b = new Builder(id);
        b.origin = origin;
        b.location = location;
        b.paths.addAll(paths());
        b.methods.addAll(methods);
        b.host = host;
        b.resourceMethods.addAll(resourceMethods);
        b.key = key;
        if (policy != null) {
            b.algorithm = policy.algorithm();
            b.limits.addAll(policy.limits());
        }
        tiers.forEach((value, tierPolicy) -> b.tiers.put(value, tierPolicy.limits()));
        b.tierKey = tierKey;
        b.cost = cost;
        b.mode = mode;
        b.exemptAddresses.addAll(exemptAddresses);
        b.exemptKeys.addAll(exemptKeys);
        b.fallbackKey = fallbackKey;
        b.response = response;
        b.maxDelay = maxDelay;
        return b;
    }

    @Override
    public String toString() {
        return "Rule[" + id + " " + paths + (resourceMethods.isEmpty() ? "" : " " + resourceMethods.size() + " methods")
                + " by " + key + " " + policy + (mode == Mode.SHADOW ? " shadow" : "") + "]";
    }

    /** Collects a rule's fields; {@link #build()} validates them. Not thread-safe. */
    public static final class Builder {
        private final String id;
        private String origin;
        private JsonTree.Location location;
        private final List<String> paths = new ArrayList<>();
        private final Set<String> methods = new LinkedHashSet<>();
        private String host;
        private final Set<Method> resourceMethods = new LinkedHashSet<>();
        private KeySpec key = KeySpec.ip();
        private Algorithm algorithm = Algorithm.TOKEN_BUCKET;
        private final List<Limit> limits = new ArrayList<>();
        private KeySpec tierKey;
        private final Map<String, List<Limit>> tiers = new LinkedHashMap<>();
        private long cost = 1;
        private Mode mode = Mode.ENFORCE;
        private final List<String> exemptAddresses = new ArrayList<>();
        private final Set<String> exemptKeys = new LinkedHashSet<>();
        private String fallbackKey;
        private RuleResponse response;
        private Duration maxDelay = Duration.ZERO;

        private Builder(String id) {
            this.id = id;
        }

        /** Where the rule comes from, for messages. */
        public Builder origin(String origin) {
            this.origin = origin;
            return this;
        }

        /** The place in a rules file the rule comes from; its origin in messages. */
        Builder at(JsonTree.Location fileLocation) {
            this.location = fileLocation;
            this.origin = fileLocation.toString();
            return this;
        }

        /** Adds path patterns: literal segments, {@code *}, {@code {name}}, and a final {@code **}. */
        public Builder paths(String... patterns) {
            paths.addAll(List.of(patterns));
            return this;
        }

        /** Restricts the rule to these HTTP methods (case-insensitive). */
        public Builder methods(String... httpMethods) {
            for (String method : httpMethods) {
                methods.add(method.toUpperCase(Locale.ROOT));
            }
            return this;
        }

        /** Restricts the rule to one host ({@code api.example.com}) or its subdomains ({@code *.example.com}). */
        public Builder host(String hostName) {
            this.host = hostName;
            return this;
        }

        /** Adds resource methods the rule matches (whatever the request path). */
        public Builder resourceMethods(Collection<Method> javaMethods) {
            resourceMethods.addAll(javaMethods);
            return this;
        }

        /** What requests are counted by; the client IP by default. */
        public Builder key(KeySpec keySpec) {
            this.key = keySpec;
            return this;
        }

        /** The algorithm of the rule's limits; the token bucket by default. */
        public Builder algorithm(Algorithm rateAlgorithm) {
            this.algorithm = Objects.requireNonNull(rateAlgorithm, "algorithm");
            return this;
        }

        /** Adds limits that must all pass. */
        public Builder limits(Limit... more) {
            limits.addAll(List.of(more));
            return this;
        }

        /** Chooses tiers by this attribute's value. */
        public Builder tierKey(KeySpec keySpec) {
            this.tierKey = keySpec;
            return this;
        }

        /** The limits for requests whose tier key has {@code value}, instead of the default limits. */
        public Builder tier(String value, List<Limit> tierLimits) {
            tiers.put(value, List.copyOf(tierLimits));
            return this;
        }

        /** Permits each request costs; 1 by default. */
        public Builder cost(long permits) {
            this.cost = permits;
            return this;
        }

        /** Enforce (the default) or shadow. */
        public Builder mode(Mode ruleMode) {
            this.mode = ruleMode;
            return this;
        }

        /** Adds client addresses or CIDR blocks the rule never counts. */
        public Builder exemptAddresses(Collection<String> addresses) {
            exemptAddresses.addAll(addresses);
            return this;
        }

        /** Adds key values the rule never counts. */
        public Builder exemptKeys(Collection<String> keys) {
            exemptKeys.addAll(keys);
            return this;
        }

        /** Counts requests lacking the key's attribute under {@code key}; by default they skip the rule. */
        public Builder fallbackKey(String key) {
            this.fallbackKey = key;
            return this;
        }

        /** The response of this rule's rejections; the adapter's default when not set. */
        public Builder response(RuleResponse ruleResponse) {
            this.response = ruleResponse;
            return this;
        }

        /** The longest delay a leaky-bucket rule may give a request, up to 366 days; zero (no queueing) by default. */
        public Builder maxDelay(Duration delay) {
            this.maxDelay = delay;
            return this;
        }

        /** The rule; throws {@link IllegalArgumentException} naming the first invalid field. */
        public Rule build() {
            return new Rule(this);
        }
    }
}
