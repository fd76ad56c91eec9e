package dev.sluice.rules;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import dev.sluice.annotation.OnMissingKey;
import dev.sluice.annotation.Sync;
import dev.sluice.rules.match.CidrSet;
import dev.sluice.rules.match.HostPattern;
import dev.sluice.rules.match.PathPattern;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One rate-limiting rule as declared: which requests it matches (paths or resource methods, HTTP methods, host), what
 * it counts them by (its key), and the limits they must all pass: rate limits per tier, a concurrency limit
 * (requests in flight, whatever the tier), or both.
 *
 * <p>Counters are named by the rule's id and a fingerprint of the policy, such as {@code login@3f2a9c1b07de|}: after a
 * reload, a rule with the same id and limits keeps counting where it was, and changed limits start afresh. Built by
 * {@link #builder(String)}, which checks each value as it is given and their combination in {@link Builder#build()},
 * throwing {@link IllegalArgumentException}s that name the field. Immutable and thread-safe. Matching in detail:
 * {@code docs/design/rules.md}.
 */
public final class Rule {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:#$-]{0,199}");
    private static final Pattern HTTP_METHOD = Pattern.compile("[A-Za-z]{1,20}");

    /** What an id looks like, for messages. */
    private static final String ID_EXPECTED =
            "an id of 1 to 200 letters, digits or ._:#$- starting with a letter or digit";

    /**
     * The longest {@link #maxDelay()}: as long as a period may be. Without a bound, a delay such as "999999999999999h"
     * would be accepted and then overflow when converted to nanoseconds for every request the rule counts.
     */
    private static final Duration MAX_DELAY = Limit.MAX_PERIOD;

    private static final System.Logger CLAMP_LOG = System.getLogger(ActualCost.class.getName());
    private static final long CLAMP_WARN_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    /**
     * The longest {@link #permitWait()}: a waiting request holds a connection and an asynchronous request, and a
     * client rarely waits longer for an answer than this.
     */
    public static final Duration MAX_WAIT = Duration.ofMinutes(10);

    private final String id;
    private final String origin;
    private final @Nullable SourceLocation location;
    private final List<PathPattern> paths;
    private final Set<String> methods;
    private final @Nullable HostPattern host;
    private final Set<Method> resourceMethods;
    private final KeySpec key;
    /** Null for an annotation that only names a rules file rule, which gives the limits, and without rate limits. */
    private final @Nullable Policy policy;
    /** Null without a concurrency limit. */
    private final @Nullable ConcurrencyLimit concurrency;
    private final @Nullable KeySpec tierKey;
    private final Map<String, Policy> tiers;
    /** Null for a rule without limits in a unit other than requests. */
    private final @Nullable Policy metered;
    private final Map<String, Policy> meteredTiers;
    /** Null exactly when {@link #metered} is. */
    private final @Nullable Estimate estimate;
    private final ActualCost actualCost;
    /** The largest actual cost a settle charges, when set; empty for the default ({@link #maxActualCost(Policy)}). */
    private final OptionalLong maxActual;
    /** When a clamped actual cost may next be logged (System.nanoTime); shared by this rule's copies. */
    private final AtomicLong nextClampWarning;
    private final long cost;
    private final Mode mode;
    private final List<String> exemptAddresses;
    private final CidrSet exemptRanges;
    private final Set<String> exemptKeys;
    private final OnMissingKey onMissingKey;
    private final @Nullable String fallbackKey;
    private final @Nullable RuleResponse response;
    private final Duration maxDelay;
    private final Duration permitWait;
    private final boolean lease;
    private final Sync sync;
    private final OptionalLong syncBudget;

    private Rule(Builder b) {
        this.id = b.id;
        this.origin = b.origin == null ? "rule '" + b.id + "'" : b.origin;
        this.location = b.location;
        this.paths = List.copyOf(b.paths);
        this.methods = Set.copyOf(b.methods);
        this.host = b.host;
        this.resourceMethods = Set.copyOf(b.resourceMethods);
        this.key = b.key;
        this.lease = b.lease;
        this.sync = b.sync;
        this.syncBudget = b.syncBudget;
        if (syncBudget.isPresent() && sync != Sync.PERIODIC) {
            throw new InvalidValueException("syncBudget", "none, as only a rule with \"sync\": \"periodic\" has one",
                    Long.toString(syncBudget.getAsLong()));
        }
        this.policy = b.policy == null ? null : distributed(b.policy);
        this.concurrency = b.concurrency;
        if (lease && policy == null && b.metered == null) {
            throw new InvalidValueException("lease", "false, as only rate limits lease", "true");
        }
        if (sync != Sync.EXACT && policy == null && b.metered == null) {
            throw new InvalidValueException("sync", "\"exact\", as only rate limits are synchronised",
                    InvalidValueException.quoted(sync.name().toLowerCase(Locale.ROOT)));
        }
        this.tierKey = b.tierKey;
        this.tiers = distributed(b.tiers);
        this.metered = b.metered == null ? null : distributed(b.metered);
        this.meteredTiers = distributed(b.meteredTiers);
        if ((tierKey == null) != (tiers.isEmpty() && meteredTiers.isEmpty())) {
            throw new IllegalArgumentException(tierKey == null ? "tiers need a key to choose them by"
                    : "a tier key needs at least one tier");
        }
        if (policy == null && !tiers.isEmpty() || metered == null && !meteredTiers.isEmpty()) {
            throw new IllegalArgumentException("tiers need default limits, for requests of no listed tier");
        }
        checkUnits();
        this.actualCost = b.actualCost;
        this.maxActual = b.maxActual;
        this.nextClampWarning = new AtomicLong(Long.MIN_VALUE);
        if (metered == null) {
            if (b.estimate != null || actualCost != ActualCost.API_ONLY) {
                throw new InvalidValueException(b.estimate != null ? "estimate" : "actual", "none, as the rule has no"
                        + " limits in a unit other than requests", String.valueOf(b.estimate != null ? b.estimate
                        : actualCost));
            }
            if (maxActual.isPresent()) {
                throw new InvalidValueException("maxActual", "none, as the rule has no limits in a unit other than"
                        + " requests", Long.toString(maxActual.getAsLong()));
            }
            this.estimate = null;
        } else {
            if (b.estimate == null) {
                throw new IllegalArgumentException("a rule with limits in " + metered.unit() + " needs an estimate:"
                        + " where a request's " + metered.unit() + " come from when it starts");
            }
            long smallest = metered.capacity();
            for (Policy tier : meteredTiers.values()) {
                smallest = Math.min(smallest, tier.capacity());
            }
            this.estimate = b.estimate.boundedBy(smallest);
            long largestEstimate = estimate.max().orElseThrow();
            if (maxActual.isPresent() && maxActual.getAsLong() < largestEstimate) {
                // Below an estimate, a clamped settle would give back what the request said it used beyond it.
                throw new InvalidValueException("maxActual", "an integer from " + largestEstimate + " (the estimate's"
                        + " max) to " + Limit.MAX_PERMITS, Long.toString(maxActual.getAsLong()));
            }
        }
        this.cost = b.cost;
        long smallestCapacity = policy == null ? Limit.MAX_PERMITS : policy.capacity();
        for (Policy tier : tiers.values()) {
            smallestCapacity = Math.min(smallestCapacity, tier.capacity());
        }
        if (cost < 1 || cost > smallestCapacity) {
            throw new InvalidValueException("cost", "an integer between 1 and " + smallestCapacity,
                    String.valueOf(cost));
        }
        this.mode = b.mode;
        this.exemptAddresses = List.copyOf(b.exemptAddresses);
        this.exemptRanges = b.exemptRanges;
        this.exemptKeys = Set.copyOf(b.exemptKeys);
        this.onMissingKey = b.onMissingKey;
        this.fallbackKey = b.fallbackKey;
        if (onMissingKey == OnMissingKey.SKIP && fallbackKey != null) {
            throw new InvalidValueException("fallbackKey", "no fallbackKey when requests lacking the key skip the rule",
                    InvalidValueException.quoted(fallbackKey));
        }
        this.response = b.response;
        this.maxDelay = b.maxDelay;
        this.permitWait = b.permitWait;
        if (!permitWait.isZero() && concurrency == null) {
            throw new InvalidValueException("wait", "0s, as only a concurrency limit's permits are waited for",
                    permitWait.toString());
        }
    }

    /** {@code rule} also matching {@code resourceMethods}: its definition shared, nothing parsed or checked again. */
    private Rule(Rule rule, Set<Method> resourceMethods) {
        this.id = rule.id;
        this.origin = rule.origin;
        this.location = rule.location;
        this.paths = rule.paths;
        this.methods = rule.methods;
        this.host = rule.host;
        this.resourceMethods = resourceMethods;
        this.key = rule.key;
        this.policy = rule.policy;
        this.concurrency = rule.concurrency;
        this.tierKey = rule.tierKey;
        this.tiers = rule.tiers;
        this.metered = rule.metered;
        this.meteredTiers = rule.meteredTiers;
        this.estimate = rule.estimate;
        this.actualCost = rule.actualCost;
        this.maxActual = rule.maxActual;
        this.nextClampWarning = rule.nextClampWarning;
        this.cost = rule.cost;
        this.mode = rule.mode;
        this.exemptAddresses = rule.exemptAddresses;
        this.exemptRanges = rule.exemptRanges;
        this.exemptKeys = rule.exemptKeys;
        this.onMissingKey = rule.onMissingKey;
        this.fallbackKey = rule.fallbackKey;
        this.response = rule.response;
        this.maxDelay = rule.maxDelay;
        this.permitWait = rule.permitWait;
        this.lease = rule.lease;
        this.sync = rule.sync;
        this.syncBudget = rule.syncBudget;
    }

    /** Each tier's policy {@linkplain #distributed(Policy) distributed} as the rule's fields say. */
    private Map<String, Policy> distributed(Map<String, Policy> byTier) {
        Map<String, Policy> policies = new LinkedHashMap<>(byTier);
        policies.replaceAll((tier, tierPolicy) -> distributed(tierPolicy));
        return Map.copyOf(policies);
    }

    /**
     * Checks that the request limits count requests and the others one unit: a rule counts requests and at most one
     * other unit, each request reserving its estimate in it.
     */
    private void checkUnits() {
        List<Policy> requests = new ArrayList<>(tiers.values());
        if (policy != null) {
            requests.add(policy);
        }
        for (Policy counted : requests) {
            if (counted.metered()) {
                throw new IllegalArgumentException("the rule's request limits count " + counted.unit() + "; give"
                        + " limits in another unit than requests as its metered limits");
            }
        }
        if (metered == null) {
            return;
        }
        for (Policy tier : meteredTiers.values()) {
            if (!tier.unit().equals(metered.unit())) {
                throw new IllegalArgumentException("a rule counts one unit beside requests: its limits count "
                        + metered.unit() + ", a tier's " + tier.unit());
            }
        }
        if (!metered.metered()) {
            throw new IllegalArgumentException("the rule's metered limits count requests; give them a unit"
                    + " (Policy.inUnit), or give them as its request limits");
        }
    }

    /**
     * {@code policy} {@linkplain Policy#leasing() leasing} and {@linkplain Policy#synchronised() synchronised} as the
     * rule's fields say, or the reason it cannot, as the field's error.
     */
    private Policy distributed(Policy policy) {
        Policy leasing = policy;
        if (lease) {
            try {
                leasing = policy.leasing();
            } catch (IllegalArgumentException e) {
                throw new InvalidValueException("lease", "false, as " + e.getMessage(), "true");
            }
        }
        if (sync == Sync.EXACT) {
            return leasing;
        }
        try {
            return syncBudget.isPresent() ? leasing.synchronised(syncBudget.getAsLong()) : leasing.synchronised();
        } catch (IllegalArgumentException e) {
            throw new InvalidValueException("sync", "\"exact\", as " + e.getMessage(),
                    InvalidValueException.quoted(sync.name().toLowerCase(Locale.ROOT)));
        }
    }

    /**
     * A builder for a rule with this id: letters, digits and {@code ._:#$-}, at most 200 characters.
     *
     * @throws IllegalArgumentException when the id is not one
     */
    public static Builder builder(String id) {
        if (!ID.matcher(id).matches()) {
            throw new InvalidValueException("id", ID_EXPECTED, InvalidValueException.quoted(id));
        }
        return new Builder(id);
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
    public RulesException error(String problem) {
        return location != null ? location.error(problem) : new RulesException(origin + ": " + problem);
    }

    /** The path patterns, such as {@code /api/users/{id}} or {@code /api/**}. */
    public List<String> paths() {
        return paths.stream().map(PathPattern::toString).toList();
    }

    public List<PathPattern> pathPatterns() {
        return paths;
    }

    /** The HTTP methods matched, upper case; empty for any. */
    public Set<String> methods() {
        return methods;
    }

    /** The host matched; empty for any. */
    public Optional<HostPattern> host() {
        return Optional.ofNullable(host);
    }

    /** Resource methods matched (from annotations), whatever their path. */
    public Set<Method> resourceMethods() {
        return resourceMethods;
    }

    /** What requests are counted by. */
    public KeySpec key() {
        return key;
    }

    /**
     * The default policy: the rule's algorithm and rate limits; empty for a rule of a concurrency limit alone, and for
     * an annotation that names a rules file rule (whose limits it takes). Every rule of a rule set has a policy
     * or a {@linkplain #concurrency() concurrency limit}.
     */
    public Optional<Policy> policy() {
        return Optional.ofNullable(policy);
    }

    /**
     * The concurrency limit: at most so many of the key's requests in flight at once, across every node sharing the
     * store; empty when the rule has none.
     */
    public Optional<ConcurrencyLimit> concurrency() {
        return Optional.ofNullable(concurrency);
    }

    /** The attribute whose value selects a tier; empty when the rule has no tiers. */
    public Optional<KeySpec> tierKey() {
        return Optional.ofNullable(tierKey);
    }

    /** The policy of each tier, by the tier key's value. */
    public Map<String, Policy> tiers() {
        return tiers;
    }

    /**
     * The limits in a unit other than requests (tokens, bytes), for requests of no listed tier: each request reserves
     * its {@linkplain #estimate() estimate} in that unit when it starts and settles its {@linkplain #actualCost()
     * actual cost} when it ends; empty for a rule that counts only requests. See {@code docs/design/costs.md}.
     */
    public Optional<Policy> metered() {
        return Optional.ofNullable(metered);
    }

    /** The limits in the {@linkplain #metered() metered} unit of each tier, by the tier key's value. */
    public Map<String, Policy> meteredTiers() {
        return meteredTiers;
    }

    /**
     * Where a request's estimate in the {@linkplain #metered() metered} unit comes from, bounded by the smallest
     * capacity of the limits in it; empty exactly when the rule has none.
     */
    public Optional<Estimate> estimate() {
        return Optional.ofNullable(estimate);
    }

    /** Where a request's actual cost in the metered unit comes from when it ends; only the API by default. */
    public ActualCost actualCost() {
        return actualCost;
    }

    /**
     * The largest actual cost a settle charges, when the rule sets one ({@code maxActual}); empty for the default,
     * {@value ActualCost#DEFAULT_MAX_CAPACITIES} times the capacity of the limits a request reserved under
     * ({@link #maxActualCost(Policy)}).
     */
    public OptionalLong maxActual() {
        return maxActual;
    }

    /**
     * The largest actual cost a request that reserved under {@code reserved} (the rule's {@linkplain #metered()
     * metered} limits, or a tier's) settles at: {@link #maxActual()}, or by default
     * {@link ActualCost#defaultMax(Policy)}. A larger one is settled at this (and logged): a debt, however large the
     * cost said, never locks the key longer than this cost's ({@code docs/design/costs.md}).
     */
    public long maxActualCost(Policy reserved) {
        return maxActual.orElseGet(() -> ActualCost.defaultMax(reserved));
    }

    /**
     * {@code actual} at most {@link #maxActualCost(Policy)}; a larger one is logged (at most once a minute per rule,
     * naming the rule, never a key).
     */
    public long boundedActualCost(long actual, Policy reserved) {
        long max = maxActualCost(reserved);
        if (actual <= max) {
            return actual;
        }
        long now = System.nanoTime();
        long next = nextClampWarning.get();
        if ((next == Long.MIN_VALUE || now - next >= 0)
                && nextClampWarning.compareAndSet(next, now + CLAMP_WARN_INTERVAL_NANOS)) {
            CLAMP_LOG.log(System.Logger.Level.WARNING, "Sluice rule '" + id + "': an actual cost of " + actual + " "
                    + reserved.unit() + " is above the rule's maximum of " + max + " (maxActual); settled at " + max
                    + " (said at most once a minute)");
        }
        return max;
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

    public CidrSet exemptRanges() {
        return exemptRanges;
    }

    /** Key values the rule never counts. */
    public Set<String> exemptKeys() {
        return exemptKeys;
    }

    /** The key counted when the request lacks the key's attribute; empty to skip the rule for such a request. */
    public OnMissingKey onMissingKey() {
        return onMissingKey;
    }

    public Optional<String> fallbackKey() {
        return Optional.ofNullable(fallbackKey);
    }

    /** The response of this rule's rejections; empty for the adapter's default. */
    public Optional<RuleResponse> response() {
        return Optional.ofNullable(response);
    }

    /**
     * Whether the rule's policies ask stores that lease to grant hot keys from slices ({@link Policy#leasing()});
     * false by default.
     */
    public boolean lease() {
        return lease;
    }

    /**
     * How the rule's counters are kept in step across nodes ({@link Policy#synchronised()} for
     * {@link Sync#PERIODIC}); {@link Sync#EXACT} by default.
     */
    public Sync sync() {
        return sync;
    }

    /**
     * The synchronised mode's budget, in permits per node and key ({@link Policy#synchronised(long)}), when the rule
     * sets one; empty for the store's.
     */
    public OptionalLong syncBudget() {
        return syncBudget;
    }

    /** The longest delay a leaky-bucket rule gives a request before rejecting it instead; zero by default. */
    public Duration maxDelay() {
        return maxDelay;
    }

    /**
     * The longest a request over the rule's concurrency limit waits for a permit, first come first served, before it
     * is rejected; zero (reject at once) by default. See {@code docs/design/concurrency.md}.
     */
    public Duration permitWait() {
        return permitWait;
    }

    /** Whether the rule has limits of its own (an annotation naming a rules file rule has not). */
    public boolean defined() {
        return policy != null || concurrency != null || metered != null;
    }

    public boolean matchesNothing() {
        return paths.isEmpty() && resourceMethods.isEmpty();
    }

    /** This rule also matching {@code more} resource methods; everything else is shared, not built again. */
    public Rule withResourceMethods(Collection<Method> more) {
        Set<Method> all = new LinkedHashSet<>(resourceMethods);
        all.addAll(more);
        return new Rule(this, Set.copyOf(all));
    }

    /** The default name of a concurrency limit of rule {@code id}: {@code exports:2 concurrent}. */
    public static ConcurrencyLimit defaultName(ConcurrencyLimit limit, String id) {
        return limit.named(id + ":" + limit.permits() + " concurrent");
    }

    /** The default name of a limit of rule {@code id}, in tier {@code tier} (null for none): {@code login:5/1m}. */
    public static Limit defaultName(Limit limit, String id, @Nullable String tier) {
        return defaultName(limit, id, tier, Policy.REQUESTS);
    }

    /**
     * The default name of a limit of rule {@code id} counting {@code unit}: as for requests, the unit after the
     * permits when it is another ({@code llm:10000 tokens/1m}).
     */
    public static Limit defaultName(Limit limit, String id, @Nullable String tier, String unit) {
        return limit.named(id + (tier == null ? "" : "." + tier) + ":" + limit.permits()
                + (unit.equals(Policy.REQUESTS) ? "" : " " + unit) + "/"
                + limit.name().substring(limit.name().indexOf('/') + 1));
    }

    @Override
    public String toString() {
        return "Rule[" + id + " " + paths + (resourceMethods.isEmpty() ? "" : " " + resourceMethods.size() + " methods")
                + " by " + key + " " + policy + (metered == null ? "" : " " + metered)
                + (concurrency == null ? "" : " " + concurrency)
                + (mode == Mode.SHADOW ? " shadow" : "") + "]";
    }

    /**
     * Collects a rule's fields. Each setter checks its value and throws {@link IllegalArgumentException} naming the
     * field; {@link #build()} checks how the fields combine. Not thread-safe.
     */
    public static final class Builder {
        private final String id;
        private @Nullable String origin;
        private @Nullable SourceLocation location;
        private final List<PathPattern> paths = new ArrayList<>();
        private final Set<String> methods = new LinkedHashSet<>();
        private @Nullable HostPattern host;
        private final Set<Method> resourceMethods = new LinkedHashSet<>();
        private KeySpec key = KeySpec.ip();
        private @Nullable Policy policy;
        private @Nullable ConcurrencyLimit concurrency;
        private @Nullable KeySpec tierKey;
        private final Map<String, Policy> tiers = new LinkedHashMap<>();
        private @Nullable Policy metered;
        private final Map<String, Policy> meteredTiers = new LinkedHashMap<>();
        private @Nullable Estimate estimate;
        private ActualCost actualCost = ActualCost.API_ONLY;
        private OptionalLong maxActual = OptionalLong.empty();
        private long cost = 1;
        private Mode mode = Mode.ENFORCE;
        private final List<String> exemptAddresses = new ArrayList<>();
        private CidrSet exemptRanges = CidrSet.EMPTY;
        private final Set<String> exemptKeys = new LinkedHashSet<>();
        private OnMissingKey onMissingKey = OnMissingKey.FALLBACK;
        private @Nullable String fallbackKey;
        private @Nullable RuleResponse response;
        private Duration maxDelay = Duration.ZERO;
        private Duration permitWait = Duration.ZERO;
        private boolean lease;
        private Sync sync = Sync.EXACT;
        private OptionalLong syncBudget = OptionalLong.empty();

        private Builder(String id) {
            this.id = id;
        }

        /** Where the rule comes from, for messages. */
        public Builder origin(String ruleOrigin) {
            this.origin = Objects.requireNonNull(ruleOrigin, "origin");
            return this;
        }

        /** The place in a rules file the rule comes from; its origin in messages. */
        public Builder definedAt(SourceLocation fileLocation) {
            this.location = fileLocation;
            this.origin = fileLocation.toString();
            return this;
        }

        /**
         * Adds path patterns: literal segments, {@code *}, {@code {name}}, and a final {@code **}.
         *
         * @throws IllegalArgumentException for a pattern that is none ({@link PathPattern#parse})
         */
        public Builder paths(String... patterns) {
            for (String pattern : patterns) {
                paths.add(PathPattern.parse(pattern));
            }
            return this;
        }

        /**
         * Restricts the rule to these HTTP methods (case-insensitive).
         *
         * @throws IllegalArgumentException for a method that is not 1 to 20 letters
         */
        public Builder methods(String... httpMethods) {
            for (String method : httpMethods) {
                if (!HTTP_METHOD.matcher(method).matches()) {
                    throw new InvalidValueException("methods", "an HTTP method such as \"GET\"",
                            InvalidValueException.quoted(method));
                }
                methods.add(method.toUpperCase(Locale.ROOT));
            }
            return this;
        }

        /**
         * Restricts the rule to one host ({@code api.example.com}) or its subdomains ({@code *.example.com}); see
         * {@link HostPattern} for ports.
         *
         * @throws IllegalArgumentException for a host pattern that is none
         */
        public Builder host(String hostPattern) {
            try {
                this.host = HostPattern.parse(hostPattern);
            } catch (IllegalArgumentException e) {
                throw new InvalidValueException("host", HostPattern.EXPECTED,
                        InvalidValueException.quoted(hostPattern));
            }
            return this;
        }

        /** Adds resource methods the rule matches (whatever the request path). */
        public Builder resourceMethods(Collection<Method> javaMethods) {
            resourceMethods.addAll(javaMethods);
            return this;
        }

        /** What requests are counted by; the client IP by default. */
        public Builder key(KeySpec keySpec) {
            this.key = Objects.requireNonNull(keySpec, "key");
            return this;
        }

        /**
         * The algorithm and the limits that must all pass, for requests of no listed tier; required, but for an
         * annotation that names a rules file rule (which gives the policy).
         */
        public Builder policy(Policy defaultPolicy) {
            this.policy = Objects.requireNonNull(defaultPolicy, "policy");
            return this;
        }

        /**
         * At most {@code limit}'s permits of the key's requests in flight at once, whatever the tier; beside the rate
         * limits or alone (a rule needs one or the other). Each request holds one permit, whatever its cost.
         */
        public Builder concurrency(ConcurrencyLimit limit) {
            this.concurrency = Objects.requireNonNull(limit, "concurrency");
            return this;
        }

        /** Chooses tiers by this attribute's value. */
        public Builder tierKey(KeySpec keySpec) {
            this.tierKey = Objects.requireNonNull(keySpec, "tierKey");
            return this;
        }

        /** The policy for requests whose tier key has {@code value}, instead of the default policy. */
        public Builder tier(String value, Policy tierPolicy) {
            tiers.put(Objects.requireNonNull(value, "value"), Objects.requireNonNull(tierPolicy, "policy"));
            return this;
        }

        /**
         * The limits in a unit other than requests ({@link Policy#inUnit}, such as tokens), for requests of no listed
         * tier: each request reserves its {@linkplain #estimate estimate} when it starts and settles its actual cost
         * when it ends. Beside the request limits ({@link #policy}) or alone; needs an estimate. See
         * {@code docs/design/costs.md}.
         */
        public Builder metered(Policy meteredPolicy) {
            this.metered = Objects.requireNonNull(meteredPolicy, "metered");
            return this;
        }

        /** The limits in the metered unit for requests whose tier key has {@code value}. */
        public Builder meteredTier(String value, Policy tierPolicy) {
            meteredTiers.put(Objects.requireNonNull(value, "value"), Objects.requireNonNull(tierPolicy, "policy"));
            return this;
        }

        /**
         * Where a request's estimate in the metered unit comes from; required with {@link #metered}. Its maximum is
         * the smallest capacity of the metered limits unless set lower.
         */
        public Builder estimate(Estimate requestEstimate) {
            this.estimate = Objects.requireNonNull(requestEstimate, "estimate");
            return this;
        }

        /** Where a request's actual cost in the metered unit comes from when it ends; only the API by default. */
        public Builder actualCost(ActualCost source) {
            this.actualCost = Objects.requireNonNull(source, "actualCost");
            return this;
        }

        /**
         * The largest actual cost a request's settle charges, with {@link #metered}: a larger one (from the response,
         * an attribute or the API) is settled at this and logged. At least the estimate's maximum; by default
         * {@value ActualCost#DEFAULT_MAX_CAPACITIES} times the capacity of the limits the request reserved under.
         *
         * @throws IllegalArgumentException when {@code cost} is not from 1 to {@link Limit#MAX_PERMITS}
         */
        public Builder maxActualCost(long cost) {
            if (cost < 1 || cost > Limit.MAX_PERMITS) {
                throw new InvalidValueException("maxActual", "an integer from 1 to " + Limit.MAX_PERMITS,
                        Long.toString(cost));
            }
            this.maxActual = OptionalLong.of(cost);
            return this;
        }

        /** Permits each request costs, from 1 to the smallest capacity of the policies' limits; 1 by default. */
        public Builder cost(long permits) {
            this.cost = permits;
            return this;
        }

        /** Enforce (the default) or shadow. */
        public Builder mode(Mode ruleMode) {
            this.mode = Objects.requireNonNull(ruleMode, "mode");
            return this;
        }

        /**
         * Adds client addresses or CIDR blocks the rule never counts.
         *
         * @throws IllegalArgumentException naming an entry that is neither
         */
        public Builder exemptAddresses(Collection<String> addresses) {
            List<String> added = List.copyOf(addresses);
            exemptRanges = exemptRanges.with(CidrSet.parse(added));
            exemptAddresses.addAll(added);
            return this;
        }

        /** Adds key values the rule never counts. */
        public Builder exemptKeys(Collection<String> keys) {
            exemptKeys.addAll(keys);
            return this;
        }

        /**
         * What requests lacking the key's attribute get: {@link OnMissingKey#FALLBACK} by default, counted under the
         * {@linkplain #fallbackKey fallback key} or, without one, the client's address; or {@link OnMissingKey#SKIP}.
         */
        public Builder onMissingKey(OnMissingKey choice) {
            this.onMissingKey = Objects.requireNonNull(choice, "onMissingKey");
            return this;
        }

        /**
         * Counts requests lacking the key's attribute under {@code key}, one counter for all of them, instead of under
         * each client's address; not with {@link OnMissingKey#SKIP}.
         *
         * @throws IllegalArgumentException when the key is blank
         */
        public Builder fallbackKey(String key) {
            if (key.isBlank()) {
                throw new InvalidValueException("fallbackKey", "a non-empty string", InvalidValueException.quoted(key));
            }
            this.fallbackKey = key;
            return this;
        }

        /** The response of this rule's rejections; the adapter's default when not set. */
        public Builder response(RuleResponse ruleResponse) {
            this.response = Objects.requireNonNull(ruleResponse, "response");
            return this;
        }

        /**
         * The longest delay a leaky-bucket rule may give a request; zero (no queueing) by default.
         *
         * @throws IllegalArgumentException for a delay below zero or above 366 days
         */
        public Builder maxDelay(Duration delay) {
            if (delay.isNegative() || delay.compareTo(MAX_DELAY) > 0) {
                throw new InvalidValueException("maxDelay", "a maxDelay from 0s to " + MAX_DELAY.toDays() + "d",
                        delay.toString());
            }
            this.maxDelay = delay;
            return this;
        }

        /**
         * The longest a request over the {@linkplain #concurrency concurrency limit} waits for a permit; zero (no
         * waiting) by default. Checked by {@link #build()}: only a rule with a concurrency limit waits.
         *
         * @throws IllegalArgumentException for a wait below zero or above {@link #MAX_WAIT}
         */
        public Builder permitWait(Duration wait) {
            if (wait.isNegative() || wait.compareTo(MAX_WAIT) > 0) {
                throw new InvalidValueException("wait", "a wait from 0s to " + MAX_WAIT.toMinutes() + "m",
                        wait.toString());
            }
            this.permitWait = wait;
            return this;
        }

        /**
         * Whether the rule's policies (default and tiers) ask stores that lease to grant hot keys from slices taken
         * from each key's owner ({@link Policy#leasing()}); false by default. Checked by {@link #build()}: the
         * sliding window log and the leaky bucket cannot lease.
         */
        public Builder lease(boolean on) {
            this.lease = on;
            return this;
        }

        /**
         * How the rule's policies (default and tiers) are kept in step across nodes; {@link Sync#EXACT} by default.
         * Checked by {@link #build()}: a rule that leases cannot be synchronised, nor a rule without rate limits.
         */
        public Builder sync(Sync mode) {
            this.sync = Objects.requireNonNull(mode, "sync");
            return this;
        }

        /**
         * A synchronised rule's budget: at most {@code permits} of a key admitted on one node and not yet counted by
         * the key's owner ({@link Policy#synchronised(long)}); the store's by default. Checked by {@link #build()}:
         * only with {@link Sync#PERIODIC}.
         *
         * @throws IllegalArgumentException when {@code permits} is negative
         */
        public Builder syncBudget(long permits) {
            if (permits < 0) {
                throw new IllegalArgumentException("syncBudget must be 0 or more permits, got " + permits);
            }
            this.syncBudget = OptionalLong.of(permits);
            return this;
        }

        /**
         * The rule.
         *
         * @throws IllegalArgumentException when the fields do not combine: tiers without a tier key or default
         *     policy, a cost above the smallest capacity, a lease of an algorithm that cannot lease, a
         *     synchronised rule that leases, a budget on a rule that is not synchronised
         */
        public Rule build() {
            return new Rule(this);
        }
    }
}
