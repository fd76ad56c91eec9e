package dev.sluice.rules;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One rate-limiting rule as declared, as a few values: which requests it {@linkplain #match() matches}, what it counts
 * them by ({@linkplain #key() its key}), the limits they must all pass ({@linkplain #requestLimits() rate limits of
 * requests}, {@linkplain #unitLimits() limits in a unit} with their {@linkplain #unitCosts() costs}, a
 * {@linkplain #concurrency() concurrency limit}), and how its counters are {@linkplain #distribution() distributed}.
 *
 * <p>Built by {@link #builder(String)}: each value checks itself, and the rule checks how they combine, throwing
 * {@link IllegalArgumentException}s that name the field ({@link InvalidValueException}); a reader of a format maps
 * the field to where it came from. Immutable and thread-safe. Matching in detail: {@code docs/design/rules.md}.
 */
public final class Rule {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:#$-]{0,199}");

    /** What an id looks like, for messages. */
    private static final String ID_EXPECTED =
            "an id of 1 to 200 letters, digits or ._:#$- starting with a letter or digit";

    /**
     * The longest {@link #permitWait()}: a waiting request holds a connection and an asynchronous request, and a
     * client rarely waits longer for an answer than this.
     */
    public static final Duration MAX_WAIT = Duration.ofMinutes(10);

    private final String id;
    private final String origin;
    private final @Nullable SourceLocation location;
    private final RequestMatch match;
    private final RuleKey key;
    /** Null for a rule of a concurrency limit alone, and for an annotation naming a rules file rule. */
    private final @Nullable RuleLimits requestLimits;
    /** Null for a rule without limits in a unit other than requests. */
    private final @Nullable RuleLimits unitLimits;
    /** Null exactly when {@link #unitLimits} is. */
    private final @Nullable UnitCosts unitCosts;
    /** Null for a rule without tiers. */
    private final @Nullable KeySpec tierKey;
    /** Null without a concurrency limit. */
    private final @Nullable ConcurrencyLimit concurrency;
    private final Duration permitWait;
    private final long cost;
    private final Mode mode;
    private final @Nullable RuleResponse response;
    private final Duration maxDelay;
    private final Distribution distribution;

    /** The rule of {@code b}'s values, checked as they combine. */
    Rule(RuleBuilder b) {
        this.id = b.id;
        this.origin = b.origin == null ? "rule '" + b.id + "'" : b.origin;
        this.location = b.location;
        this.match = new RequestMatch(b.paths, b.methods, b.host, b.resourceMethods);
        this.distribution = new Distribution(b.lease, b.sync, b.syncBudget);
        this.requestLimits = limits(b.policy, b.tiers);
        this.unitLimits = limits(b.metered, b.meteredTiers);
        if (!distribution.exact() && requestLimits == null && unitLimits == null) {
            throw distribution.withoutRateLimits();
        }
        this.tierKey = b.tierKey;
        if ((tierKey == null) != (b.tiers.isEmpty() && b.meteredTiers.isEmpty())) {
            throw new IllegalArgumentException(tierKey == null ? "tiers need a key to choose them by"
                    : "a tier key needs at least one tier");
        }
        if (requestLimits != null && !requestLimits.unit().equals(Policy.REQUESTS)) {
            throw new IllegalArgumentException("the rule's request limits count " + requestLimits.unit() + "; give"
                    + " limits in another unit than requests as its metered limits");
        }
        if (unitLimits != null && unitLimits.unit().equals(Policy.REQUESTS)) {
            throw new IllegalArgumentException("the rule's metered limits count requests; give them a unit"
                    + " (Policy.inUnit), or give them as its request limits");
        }
        this.unitCosts = unitCosts(b);
        this.cost = b.cost;
        long smallestCapacity = requestLimits == null ? Limit.MAX_PERMITS : requestLimits.smallestCapacity();
        if (cost < 1 || cost > smallestCapacity) {
            throw new InvalidValueException("cost", "an integer between 1 and " + smallestCapacity,
                    String.valueOf(cost));
        }
        this.mode = b.mode;
        this.key = new RuleKey(b.key, b.exemptAddresses, b.exemptRanges, b.exemptKeys, b.onMissingKey,
                b.fallbackKey);
        this.response = b.response;
        this.maxDelay = b.maxDelay;
        this.concurrency = b.concurrency;
        this.permitWait = b.permitWait;
        if (!permitWait.isZero() && concurrency == null) {
            throw new InvalidValueException("wait", "0s, as only a concurrency limit's permits are waited for",
                    permitWait.toString());
        }
    }

    /** {@code rule} matching {@code match}: everything else shared, nothing parsed or checked again. */
    private Rule(Rule rule, RequestMatch match) {
        this.id = rule.id;
        this.origin = rule.origin;
        this.location = rule.location;
        this.match = match;
        this.key = rule.key;
        this.requestLimits = rule.requestLimits;
        this.unitLimits = rule.unitLimits;
        this.unitCosts = rule.unitCosts;
        this.tierKey = rule.tierKey;
        this.concurrency = rule.concurrency;
        this.permitWait = rule.permitWait;
        this.cost = rule.cost;
        this.mode = rule.mode;
        this.response = rule.response;
        this.maxDelay = rule.maxDelay;
        this.distribution = rule.distribution;
    }

    /** The limits of {@code defaults} and {@code tiers} distributed as the rule says; null without defaults. */
    private @Nullable RuleLimits limits(@Nullable Policy defaults, Map<String, Policy> tiers) {
        if (defaults == null) {
            if (!tiers.isEmpty()) {
                throw new IllegalArgumentException("tiers need default limits, for requests of no listed tier");
            }
            return null;
        }
        return new RuleLimits(defaults, tiers).distributed(distribution);
    }

    /** The costs in the unit of {@link #unitLimits}; null, and none given, without those limits. */
    private @Nullable UnitCosts unitCosts(RuleBuilder b) {
        if (unitLimits == null) {
            if (b.estimate != null || b.actualCost != ActualCost.API_ONLY) {
                throw new InvalidValueException(b.estimate != null ? "estimate" : "actual", "none, as the rule has no"
                        + " limits in a unit other than requests", String.valueOf(b.estimate != null ? b.estimate
                        : b.actualCost));
            }
            if (b.maxActual.isPresent()) {
                throw new InvalidValueException("maxActual", "none, as the rule has no limits in a unit other than"
                        + " requests", Long.toString(b.maxActual.getAsLong()));
            }
            return null;
        }
        if (b.estimate == null) {
            throw new IllegalArgumentException("a rule with limits in " + unitLimits.unit() + " needs an estimate:"
                    + " where a request's " + unitLimits.unit() + " come from when it starts");
        }
        return new UnitCosts(id, unitLimits, b.estimate, b.actualCost, b.maxActual);
    }

    /**
     * A builder for a rule with this id: letters, digits and {@code ._:#$-}, at most 200 characters.
     *
     * @throws IllegalArgumentException when the id is not one
     */
    public static RuleBuilder builder(String id) {
        if (!ID.matcher(id).matches()) {
            throw new InvalidValueException("id", ID_EXPECTED, InvalidValueException.quoted(id));
        }
        return new RuleBuilder(id);
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

    /** Which requests the rule matches. */
    public RequestMatch match() {
        return match;
    }

    /** What requests are counted by, and which are not counted. */
    public RuleKey key() {
        return key;
    }

    /**
     * The rate limits of requests, by tier; empty for a rule of a concurrency limit alone, and for an annotation that
     * names a rules file rule (whose limits it takes). Every rule of a rule set has rate limits or a
     * {@linkplain #concurrency() concurrency limit}.
     */
    public Optional<RuleLimits> requestLimits() {
        return Optional.ofNullable(requestLimits);
    }

    /**
     * The limits in a unit other than requests (tokens, bytes), by tier: each request reserves its
     * {@linkplain UnitCosts#estimate() estimate} in that unit when it starts and settles its actual cost when it
     * ends; empty for a rule that counts only requests. See {@code docs/design/costs.md}.
     */
    public Optional<RuleLimits> unitLimits() {
        return Optional.ofNullable(unitLimits);
    }

    /** What a request costs in the unit of the {@linkplain #unitLimits() unit limits}; empty exactly without them. */
    public Optional<UnitCosts> unitCosts() {
        return Optional.ofNullable(unitCosts);
    }

    /** Where a request's actual cost in the unit comes from when it ends; only the API for a rule without one. */
    public ActualCost actualCost() {
        return unitCosts == null ? ActualCost.API_ONLY : unitCosts.actualCost();
    }

    /** The attribute whose value selects a tier of either limits; empty when the rule has no tiers. */
    public Optional<KeySpec> tierKey() {
        return Optional.ofNullable(tierKey);
    }

    /**
     * The concurrency limit: at most so many of the key's requests in flight at once, across every node sharing the
     * store; empty when the rule has none.
     */
    public Optional<ConcurrencyLimit> concurrency() {
        return Optional.ofNullable(concurrency);
    }

    /**
     * The longest a request over the rule's concurrency limit waits for a permit, first come first served, before it
     * is rejected; zero (reject at once) by default. See {@code docs/design/concurrency.md}.
     */
    public Duration permitWait() {
        return permitWait;
    }

    /** Permits each request costs, at least 1. */
    public long cost() {
        return cost;
    }

    /** Whether the rule's rejections reject ({@link Mode#ENFORCE}) or are only reported ({@link Mode#SHADOW}). */
    public Mode mode() {
        return mode;
    }

    /** The response of this rule's rejections; empty for the adapter's default. */
    public Optional<RuleResponse> response() {
        return Optional.ofNullable(response);
    }

    /** The longest delay a leaky-bucket rule gives a request before rejecting it instead; zero by default. */
    public Duration maxDelay() {
        return maxDelay;
    }

    /** How the rule's rate limits are kept across nodes: leased, synchronised or exact. */
    public Distribution distribution() {
        return distribution;
    }

    /** Whether the rule has limits of its own (an annotation naming a rules file rule has not). */
    public boolean defined() {
        return requestLimits != null || concurrency != null || unitLimits != null;
    }

    /** This rule also matching {@code more} resource methods; everything else is shared, not built again. */
    public Rule withResourceMethods(Collection<Method> more) {
        return new Rule(this, match.withResourceMethods(more));
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
        return "Rule[" + id + " " + match + " by " + key + " " + requestLimits
                + (unitLimits == null ? "" : " " + unitLimits) + (concurrency == null ? "" : " " + concurrency)
                + (mode == Mode.SHADOW ? " shadow" : "") + "]";
    }
}
