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
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Collects a {@link Rule}'s fields, from {@link Rule#builder(String)}. A setter of a single value checks it at once,
 * by the check of the value it belongs to, and throws an {@link IllegalArgumentException} naming the field;
 * {@link #build()} makes the rule's values, which check the rest. Not thread-safe.
 */
public final class RuleBuilder {

    /**
     * The longest {@link #maxDelay}: as long as a period may be. Without a bound, a delay such as "999999999999999h"
     * would be accepted and then overflow when converted to nanoseconds for every request the rule counts.
     */
    private static final Duration MAX_DELAY = Limit.MAX_PERIOD;

    final String id;
    @Nullable String origin;
    @Nullable SourceLocation location;
    final List<PathPattern> paths = new ArrayList<>();
    final Set<String> methods = new LinkedHashSet<>();
    @Nullable HostPattern host;
    final Set<Method> resourceMethods = new LinkedHashSet<>();
    KeySpec key = KeySpec.ip();
    @Nullable Policy policy;
    @Nullable ConcurrencyLimit concurrency;
    @Nullable KeySpec tierKey;
    final Map<String, Policy> tiers = new LinkedHashMap<>();
    @Nullable Policy metered;
    final Map<String, Policy> meteredTiers = new LinkedHashMap<>();
    @Nullable Estimate estimate;
    ActualCost actualCost = ActualCost.API_ONLY;
    OptionalLong maxActual = OptionalLong.empty();
    long cost = 1;
    Mode mode = Mode.ENFORCE;
    final List<String> exemptAddresses = new ArrayList<>();
    CidrSet exemptRanges = CidrSet.EMPTY;
    final Set<String> exemptKeys = new LinkedHashSet<>();
    OnMissingKey onMissingKey = OnMissingKey.FALLBACK;
    @Nullable String fallbackKey;
    @Nullable RuleResponse response;
    Duration maxDelay = Duration.ZERO;
    Duration permitWait = Duration.ZERO;
    boolean lease;
    Sync sync = Sync.EXACT;
    OptionalLong syncBudget = OptionalLong.empty();

    RuleBuilder(String id) {
        this.id = id;
    }

    /** Where the rule comes from, for messages. */
    public RuleBuilder origin(String ruleOrigin) {
        this.origin = Objects.requireNonNull(ruleOrigin, "origin");
        return this;
    }

    /** The place in a rules file the rule comes from; its origin in messages. */
    public RuleBuilder definedAt(SourceLocation fileLocation) {
        this.location = fileLocation;
        this.origin = fileLocation.toString();
        return this;
    }

    /**
     * Adds path patterns: literal segments, {@code *}, {@code {name}}, and a final {@code **}.
     *
     * @throws IllegalArgumentException for a pattern that is none ({@link PathPattern#parse})
     */
    public RuleBuilder paths(String... patterns) {
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
    public RuleBuilder methods(String... httpMethods) {
        for (String method : httpMethods) {
            methods.add(RequestMatch.httpMethod(method));
        }
        return this;
    }

    /**
     * Restricts the rule to one host ({@code api.example.com}) or its subdomains ({@code *.example.com}); see
     * {@link HostPattern} for ports.
     *
     * @throws IllegalArgumentException for a host pattern that is none
     */
    public RuleBuilder host(String hostPattern) {
        this.host = RequestMatch.host(hostPattern);
        return this;
    }

    /** Adds resource methods the rule matches (whatever the request path). */
    public RuleBuilder resourceMethods(Collection<Method> javaMethods) {
        resourceMethods.addAll(javaMethods);
        return this;
    }

    /** What requests are counted by; the client IP by default. */
    public RuleBuilder key(KeySpec keySpec) {
        this.key = Objects.requireNonNull(keySpec, "key");
        return this;
    }

    /**
     * The algorithm and the limits that must all pass, for requests of no listed tier; required, but for an
     * annotation that names a rules file rule (which gives the policy).
     */
    public RuleBuilder policy(Policy defaultPolicy) {
        this.policy = Objects.requireNonNull(defaultPolicy, "policy");
        return this;
    }

    /**
     * At most {@code limit}'s permits of the key's requests in flight at once, whatever the tier; beside the rate
     * limits or alone (a rule needs one or the other). Each request holds one permit, whatever its cost.
     */
    public RuleBuilder concurrency(ConcurrencyLimit limit) {
        this.concurrency = Objects.requireNonNull(limit, "concurrency");
        return this;
    }

    /** Chooses tiers by this attribute's value. */
    public RuleBuilder tierKey(KeySpec keySpec) {
        this.tierKey = Objects.requireNonNull(keySpec, "tierKey");
        return this;
    }

    /** The policy for requests whose tier key has {@code value}, instead of the default policy. */
    public RuleBuilder tier(String value, Policy tierPolicy) {
        tiers.put(Objects.requireNonNull(value, "value"), Objects.requireNonNull(tierPolicy, "policy"));
        return this;
    }

    /**
     * The limits in a unit other than requests ({@link Policy#inUnit}, such as tokens), for requests of no listed
     * tier: each request reserves its {@linkplain #estimate estimate} when it starts and settles its actual cost
     * when it ends. Beside the request limits ({@link #policy}) or alone; needs an estimate. See
     * {@code docs/design/costs.md}.
     */
    public RuleBuilder metered(Policy meteredPolicy) {
        this.metered = Objects.requireNonNull(meteredPolicy, "metered");
        return this;
    }

    /** The limits in the metered unit for requests whose tier key has {@code value}. */
    public RuleBuilder meteredTier(String value, Policy tierPolicy) {
        meteredTiers.put(Objects.requireNonNull(value, "value"), Objects.requireNonNull(tierPolicy, "policy"));
        return this;
    }

    /**
     * Where a request's estimate in the metered unit comes from; required with {@link #metered}. Its maximum is
     * the smallest capacity of the metered limits unless set lower.
     */
    public RuleBuilder estimate(Estimate requestEstimate) {
        this.estimate = Objects.requireNonNull(requestEstimate, "estimate");
        return this;
    }

    /** Where a request's actual cost in the metered unit comes from when it ends; only the API by default. */
    public RuleBuilder actualCost(ActualCost source) {
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
    public RuleBuilder maxActualCost(long cost) {
        this.maxActual = OptionalLong.of(UnitCosts.checkedMaxActual(cost));
        return this;
    }

    /** Permits each request costs, from 1 to the smallest capacity of the policies' limits; 1 by default. */
    public RuleBuilder cost(long permits) {
        this.cost = permits;
        return this;
    }

    /** Enforce (the default) or shadow. */
    public RuleBuilder mode(Mode ruleMode) {
        this.mode = Objects.requireNonNull(ruleMode, "mode");
        return this;
    }

    /**
     * Adds client addresses or CIDR blocks the rule never counts.
     *
     * @throws IllegalArgumentException naming an entry that is neither
     */
    public RuleBuilder exemptAddresses(Collection<String> addresses) {
        List<String> added = List.copyOf(addresses);
        exemptRanges = exemptRanges.with(CidrSet.parse(added));
        exemptAddresses.addAll(added);
        return this;
    }

    /** Adds key values the rule never counts. */
    public RuleBuilder exemptKeys(Collection<String> keys) {
        exemptKeys.addAll(keys);
        return this;
    }

    /**
     * What requests lacking the key's attribute get: {@link OnMissingKey#FALLBACK} by default, counted under the
     * {@linkplain #fallbackKey fallback key} or, without one, the client's address; or {@link OnMissingKey#SKIP}.
     */
    public RuleBuilder onMissingKey(OnMissingKey choice) {
        this.onMissingKey = Objects.requireNonNull(choice, "onMissingKey");
        return this;
    }

    /**
     * Counts requests lacking the key's attribute under {@code key}, one counter for all of them, instead of under
     * each client's address; not with {@link OnMissingKey#SKIP}.
     *
     * @throws IllegalArgumentException when the key is blank
     */
    public RuleBuilder fallbackKey(String key) {
        this.fallbackKey = RuleKey.checkedFallbackKey(key);
        return this;
    }

    /** The response of this rule's rejections; the adapter's default when not set. */
    public RuleBuilder response(RuleResponse ruleResponse) {
        this.response = Objects.requireNonNull(ruleResponse, "response");
        return this;
    }

    /**
     * The longest delay a leaky-bucket rule may give a request; zero (no queueing) by default.
     *
     * @throws IllegalArgumentException for a delay below zero or above 366 days
     */
    public RuleBuilder maxDelay(Duration delay) {
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
     * @throws IllegalArgumentException for a wait below zero or above {@link Rule#MAX_WAIT}
     */
    public RuleBuilder permitWait(Duration wait) {
        if (wait.isNegative() || wait.compareTo(Rule.MAX_WAIT) > 0) {
            throw new InvalidValueException("wait", "a wait from 0s to " + Rule.MAX_WAIT.toMinutes() + "m",
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
    public RuleBuilder lease(boolean on) {
        this.lease = on;
        return this;
    }

    /**
     * How the rule's policies (default and tiers) are kept in step across nodes; {@link Sync#EXACT} by default.
     * Checked by {@link #build()}: a rule that leases cannot be synchronised, nor a rule without rate limits.
     */
    public RuleBuilder sync(Sync mode) {
        this.sync = Objects.requireNonNull(mode, "sync");
        return this;
    }

    /**
     * A synchronised rule's budget: at most {@code permits} of a key admitted on one node and not yet counted by
     * the key's owner ({@link Policy#synchronised(long)}); the store's by default. Checked by {@link #build()}:
     * only with {@link Sync#SYNCHRONISED}.
     *
     * @throws IllegalArgumentException when {@code permits} is negative (checked by {@link #build()})
     */
    public RuleBuilder syncBudget(long permits) {
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
