package dev.sluice.engine;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import dev.sluice.annotation.OnMissingKey;
import dev.sluice.internal.OverrideCounters;
import dev.sluice.rules.Estimate;
import dev.sluice.rules.KeySpec;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleKey;
import dev.sluice.rules.RuleLimits;
import dev.sluice.rules.UnitCosts;
import dev.sluice.rules.match.CidrSet;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.HostPattern;
import dev.sluice.rules.match.IpAddresses;
import dev.sluice.rules.match.PathPattern;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterKeys;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.PermitQueue;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/*
 * Why a compiled form apart from Rule: a Rule is what was declared, and it is copied whenever annotated methods join
 * it (several methods of one id, a rules file rule taking over an annotation's). Counting needs more than the
 * declaration, and each piece costs a hash or an escape: the counter prefix of every policy (a SHA-256 fingerprint),
 * and the exempt keys, tier values and fallback key escaped and bounded the way a request's key is, so that they
 * compare equal. A RuleSet makes these once per final rule when it is built; no merge or copy of a Rule repeats them,
 * and no request does. The parsed parts (path patterns, host, address ranges) the Rule's builder already made; they
 * are shared, not parsed again; the exempt ranges are widened once to the prefix IPv6 clients are keyed by.
 */

/** A rule prepared for matching and counting requests; made once per rule by {@link RuleSet}. Immutable. */
final class CompiledRule {

    /** A policy and the prefix its counter keys take. */
    record Counter(Policy policy, String prefix, Command.Decide decide, Command.Count count) {
    }

    /**
     * The counters of one {@link RuleLimits}: the default one, and each tier's by the tier value as a request's key
     * resolves it (escaped and bounded).
     */
    private record Counters(Counter defaults, Map<String, Counter> byTier) {

        /** The counter of the tier {@code tierValue} names; the default one for none or a tier not listed. */
        Counter of(@Nullable String tierValue) {
            Counter tier = tierValue == null ? null : byTier.get(tierValue);
            return tier != null ? tier : defaults;
        }
    }

    private final Rule rule;
    private final Set<String> methods;
    private final @Nullable HostPattern host;
    private final CidrSet exemptRanges;
    /** The counters of the rate limits of requests; null for a rule of a concurrency limit alone. */
    private final @Nullable Counters requestCounters;
    /** Null for a rule without a concurrency limit. */
    private final @Nullable ConcurrencyLimit concurrency;
    /** The prefix of the rule's permit keys; empty without a concurrency limit. */
    private final String permitPrefix;
    private final @Nullable KeySpec tierKey;
    /** The counters of the limits in a unit other than requests; null for a rule that counts only requests. */
    private final @Nullable Counters unitCounters;
    /** Where a request's estimate comes from; null exactly when {@link #unitCounters} is. */
    private final @Nullable Estimate estimate;
    /** The exempt keys as a request's key resolves them, so they compare equal. */
    private final Set<String> exemptKeyValues;
    /**
     * The prefix of the fallback key of a request lacking its key, before its client address. A text no request's own
     * key can begin with: every {@code %} in a key made of request values starts an escape of two hex digits
     * ({@link CounterKeys#part}), and addresses and hashes have none. (It was {@code missing|}, which a composite key
     * of the parts {@code missing} and {@code 198.51.100.77} equals: a client spent the fallback counter of another.)
     */
    static final String MISSING_KEY = "%missing|";

    /** The fallback key as a counter key part; null when requests lacking the key skip the rule. */
    private final @Nullable String fallbackKeyValue;
    private final boolean skipsMissingKey;
    private final long maxDelayNanos;
    /** The counters of override limits, made once per distinct limits (a SHA-256 each). */
    private final OverrideCounters<List<Limit>, Counter> overrideCounters =
            new OverrideCounters<>(this::overrideCounter);

    /**
     * Compiles {@code rule}, which must be {@linkplain Rule#defined() defined}, for a set whose client addresses
     * {@code addresses} resolves (IPv6 clients keyed by their {@link ClientAddresses#ipv6Prefix()}).
     */
    CompiledRule(Rule rule, ClientAddresses addresses) {
        this.rule = rule;
        this.methods = withHead(rule.match().methods());
        this.host = rule.match().host().orElse(null);
        RuleKey key = rule.key();
        this.exemptRanges = key.exemptRanges().widenedTo(addresses.ipv6Prefix());
        this.concurrency = rule.concurrency().orElse(null);
        this.permitPrefix = concurrency == null ? "" : CounterKeys.prefix(rule.id(), concurrency);
        KeySpec tiersBy = rule.tierKey().orElse(null);
        this.tierKey = tiersBy;
        long delay = rule.maxDelay().toNanos();
        this.requestCounters = rule.requestLimits().map(limits -> counters(rule.id(), tiersBy, limits, addresses,
                rule.cost(), delay)).orElse(null);
        this.unitCounters = rule.unitLimits().map(limits -> counters(rule.id(), tiersBy, limits, addresses,
                rule.cost(), delay)).orElse(null);
        this.estimate = rule.unitCosts().map(UnitCosts::estimate).orElse(null);
        this.exemptKeyValues = key.exemptKeys().stream().map(value -> asKeyValue(key.spec(), value, addresses))
                .collect(Collectors.toUnmodifiableSet());
        this.fallbackKeyValue = key.fallbackKey().map(CounterKeys::part).orElse(null);
        this.skipsMissingKey = key.onMissingKey() == OnMissingKey.SKIP;
        this.maxDelayNanos = delay;
    }

    /** {@code methods} and, when they hold {@code GET}, {@code HEAD}: routing runs a GET handler for a HEAD. */
    private static Set<String> withHead(Set<String> methods) {
        if (!methods.contains("GET") || methods.contains("HEAD")) {
            return methods;
        }
        Set<String> withHead = new HashSet<>(methods);
        withHead.add("HEAD");
        return Set.copyOf(withHead);
    }

    /** A counter of {@code policy}, with its commands made once: a request costs no command of its own. */
    private static Counter counter(String id, Policy policy, long cost, long maxDelayNanos) {
        return new Counter(policy, CounterKeys.prefix(id, policy), Command.decide(policy, cost, maxDelayNanos),
                Command.count(policy, cost, maxDelayNanos));
    }

    /** The counters of {@code limits}, each tier's by the tier value as a request's key resolves it. */
    private static Counters counters(String id, @Nullable KeySpec tiersBy, RuleLimits limits,
                                     ClientAddresses addresses, long cost, long maxDelayNanos) {
        Map<String, Counter> byValue = new LinkedHashMap<>();
        if (tiersBy != null) {
            limits.tiers().forEach((value, tier) -> byValue.put(asKeyValue(tiersBy, value, addresses),
                    counter(id, tier, cost, maxDelayNanos)));
        }
        return new Counters(counter(id, limits.defaults(), cost, maxDelayNanos), Map.copyOf(byValue));
    }

    /**
     * A configured key value (an exempt key, a tier value, an override's key) the way a request's key of {@code spec}
     * resolves: each part escaped and bounded, a composite's parts joined by {@code |}; an IP address for an
     * {@code ip} part as {@code addresses} keys it (an IPv6 address as its network: {@code 2001:db8::/64}), so that
     * {@code 2001:db8::1} meets the requests of its client.
     */
    static String asKeyValue(KeySpec spec, String configured, ClientAddresses addresses) {
        if (spec.kind() != KeySpec.Kind.COMPOSITE) {
            return partValue(spec, configured, addresses);
        }
        String[] values = configured.split("\\|", -1);
        StringBuilder joined = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            KeySpec part = i < spec.parts().size() ? spec.parts().get(i) : spec;
            joined.append(i == 0 ? "" : "|").append(partValue(part, values[i], addresses));
        }
        return joined.toString();
    }

    private static String partValue(KeySpec part, String value, ClientAddresses addresses) {
        byte[] address = part.kind() == KeySpec.Kind.IP ? IpAddresses.parse(value) : null;
        return CounterKeys.part(address == null ? value : addresses.key(address));
    }

    Rule rule() {
        return rule;
    }

    /**
     * Whether the request's method is one of the rule's (any when it names none; {@code GET} covers {@code HEAD}),
     * or the request is a {@code POST} whose method override names one ({@link RequestContext#overriddenMethod()}).
     */
    boolean matchesMethod(RequestContext context) {
        return methods.isEmpty() || methods.contains(context.method())
                || context.method().equals("POST") && methods.contains(context.overriddenMethod());
    }

    /** Whether the rule is restricted to a host. */
    boolean hasHost() {
        return host != null;
    }

    /** Whether the request's host is the rule's; false for a rule of no host ({@link #hasHost()}). */
    boolean matchesHost(RequestContext context) {
        return host != null && host.matchesAuthority(context.authority());
    }

    /**
     * The request's key under this rule; null when the rule exempts the request, or the request lacks the key and the
     * rule skips such requests. A request lacking the key otherwise counts under the rule's fallback key or, without
     * one, under {@link #MISSING_KEY} and its client address: a text no request's own key can be, composite or not.
     *
     * @param pattern the pattern that matched, for path variables; null when matched by resource method
     */
    @Nullable String keyOf(@Nullable PathPattern pattern, RequestContext context) {
        if (!exemptRanges.isEmpty() && exemptRanges.contains(context.clientAddress())) {
            return null;
        }
        String key = context.resolve(rule.key().spec(), pattern);
        if (key == null) {
            return skipsMissingKey ? null
                    : fallbackKeyValue != null ? fallbackKeyValue : MISSING_KEY + context.clientAddressKey();
        }
        return exemptKeyValues.contains(key) ? null : key;
    }

    /** Whether the rule has rate limits, which {@link #count} counts. */
    boolean counts() {
        return requestCounters != null;
    }

    /** Whether the rule has limits in a unit other than requests, which {@link #reserve} counts at an estimate. */
    boolean meters() {
        return unitCounters != null;
    }

    /**
     * The request's estimate in the rule's metered unit, or {@link Estimate#INVALID} when it is missing or invalid
     * and the rule has no default. Only for a rule that {@link #meters()}.
     */
    long estimateOf(RequestContext context) {
        return Objects.requireNonNull(estimate, "meters()").of(context.view());
    }

    /** Why the request's estimate is refused, for its 400; see {@link #estimateOf}. */
    String refusal(RequestContext context) {
        return Objects.requireNonNull(estimate, "meters()").refusal(context.view(), rule.id(),
                Objects.requireNonNull(unitCounters, "meters()").defaults().policy().unit());
    }

    /**
     * Reserves the request's {@code estimate} (from {@link #estimateOf}) in {@code store} under {@code key}, its tier's
     * counter in the metered unit ({@link Command.Estimate}, waited for); a grant also becomes a
     * {@link Reservation}, added to {@code reservations} and told to {@code events}, through which the counting's
     * give-back and settle go, once. Only for a rule that {@link #meters()}.
     *
     * @param pattern the pattern that matched, for path variables; null when matched by resource method
     */
    Counting reserve(String key, @Nullable PathPattern pattern, RequestContext context, long estimate,
                     CounterStore store, PermitEvents events, List<Reservation> reservations) {
        Counter counter = tierCounter(Objects.requireNonNull(unitCounters, "meters()"), pattern, context);
        String counterKey = counter.prefix() + key;
        Counted reserved = executed(store, counterKey, Command.estimate(counter.policy(), estimate,
                maxDelayNanos), key);
        RuleDecision outcome = new RuleDecision(rule, key, counterKey, counter.policy(), reserved.decision());
        if (!reserved.decision().allowed() || reserved.decision().storeUnavailable()) {
            return new Counting(outcome, reserved);
        }
        Reservation reservation = new Reservation(outcome, estimate, reserved, events);
        reservations.add(reservation);
        return new Counting(outcome, reservation.counted());
    }

    /** Whether the rule has a concurrency limit, whose permit {@link #acquire} takes. */
    boolean holds() {
        return concurrency != null;
    }

    /**
     * Counts the request in {@code store} under {@code key} (from {@link #keyOf}), its tier's counter and the rule's
     * cost, when {@code undoable} keeping how to take it back ({@link Command.Count}, waited for; else
     * {@link Command.Decide}, which a store may batch). Only for a rule that {@link #counts()}.
     *
     * @param pattern the pattern that matched, for path variables; null when matched by resource method
     */
    Counting count(String key, @Nullable PathPattern pattern, RequestContext context, CounterStore store,
                   boolean undoable) {
        return count(key, tierCounter(Objects.requireNonNull(requestCounters, "counts()"), pattern, context), store,
                undoable);
    }

    /**
     * Counts the request as {@link #count} does, under the limits of {@code override} (of
     * {@link LimitOverride.Kind#LIMITS}) instead of the rule's (every tier's): at the counter a rule of this id with
     * those limits would have. Only for a rule that {@link #counts()}.
     */
    Counting count(String key, LimitOverride override, CounterStore store, boolean undoable) {
        return count(key, overrideCounters.of(override.limits()), store, undoable);
    }

    /**
     * The decision of a blocked key ({@link LimitOverride#decision}) at {@code now}, counting nothing: against the
     * rule's default policy (of requests, else of its metered unit), or its concurrency limit for a rule of a
     * concurrency limit alone.
     */
    Counting blocked(String key, LimitOverride override, Instant now) {
        RuleDecision outcome;
        Counters counters = requestCounters != null ? requestCounters : unitCounters;
        if (counters != null) {
            Counter counter = counters.defaults();
            Policy policy = counter.policy();
            outcome = new RuleDecision(rule, key, counter.prefix() + key, policy,
                    override.decision(policy.capacity(), now));
        } else {
            ConcurrencyLimit limit = Objects.requireNonNull(concurrency, "a rule counts or holds");
            outcome = new RuleDecision(rule, key, permitPrefix + key, limit, override.decision(limit.permits(), now));
        }
        return new Counting(outcome, Counted.kept(outcome.decision()));
    }

    /** The counter of override limits {@code limits}; made once per distinct limits by {@link #overrideCounters}. */
    private Counter overrideCounter(List<Limit> limits) {
        Policy base = Objects.requireNonNull(requestCounters, "counts()").defaults().policy();
        return counter(rule.id(), base.withLimits(limits), rule.cost(), maxDelayNanos);
    }

    private Counting count(String key, Counter counter, CounterStore store, boolean undoable) {
        String counterKey = counter.prefix() + key;
        Counted counted;
        if (undoable) {
            counted = executed(store, counterKey, counter.count(), key);
        } else {
            try {
                counted = Counted.kept(store.execute(counterKey, counter.decide()));
            } catch (RuntimeException e) {
                // Adapters log what propagates, and a store may name the key it failed on: mask it there.
                throw KeyMask.redacted(e, key);
            }
        }
        return new Counting(new RuleDecision(rule, key, counterKey, counter.policy(), counted.decision()), counted);
    }

    /** Whether a request over the rule's concurrency limit waits for a permit ({@link Rule#permitWait()}). */
    boolean waits() {
        return !rule.permitWait().isZero();
    }

    /**
     * Takes a permit of the rule's concurrency limit in {@code store} under {@code key} (from {@link #keyOf}), waited
     * for; the counting's {@link Counted#giveBack()} releases it, telling {@code events} once. Only for a rule that
     * {@link #holds()}.
     */
    Counting acquire(String key, CounterStore store, PermitEvents events) {
        String permitKey = permitPrefix + key;
        return counting(key, permitKey, executed(store, permitKey, Command.acquire(limit()), key), events);
    }

    /**
     * Like {@link #acquire(String, CounterStore, PermitEvents)}, through {@code queue}: after this node's earlier
     * waiters of the key, waiting up to the rule's {@link Rule#permitWait()}; tells {@code events} when the request
     * begins to wait. The queue's own future, which {@link #waited} turns into the counting; cancelling it leaves the
     * queue. Only for a rule that {@link #waits()}.
     */
    CompletableFuture<Counted> enqueue(String key, CounterStore store, PermitQueue queue, PermitEvents events,
                                       AtomicBoolean waited) {
        String id = rule.id();
        return queue.acquire(store, permitPrefix + key, limit(), rule.permitWait(), () -> {
            waited.set(true);
            events.waitStarted(id);
        });
    }

    /** The counting of what {@link #enqueue} answered; tells {@code events} how a wait ended, if the request waited. */
    Counting waited(String key, Counted held, PermitEvents events, boolean waited) {
        if (waited) {
            if (held.decision().allowed()) {
                events.waitGranted(rule.id());
            } else {
                events.waitTimedOut(rule.id());
            }
        }
        return counting(key, permitPrefix + key, held, events);
    }

    private ConcurrencyLimit limit() {
        return Objects.requireNonNull(concurrency, "holds()");
    }

    /** The counting of a permit taken (or refused); a permit held tells {@code events} once of its release. */
    private Counting counting(String key, String permitKey, Counted held, PermitEvents events) {
        Decision decision = held.decision();
        Counted counted = held;
        if (decision.allowed() && !decision.storeUnavailable()) {
            String id = rule.id();
            events.taken(id);
            AtomicBoolean released = new AtomicBoolean();
            CompletableFuture<Decision> after = new CompletableFuture<>();
            counted = Counted.undoable(decision, () -> {
                if (released.compareAndSet(false, true)) {
                    // Told once the store answers the release, however it answers: until then the store counts it.
                    held.giveBack().whenComplete((state, failure) -> {
                        events.released(id);
                        if (failure != null) {
                            after.completeExceptionally(failure);
                        } else {
                            after.complete(state);
                        }
                    });
                }
                return after;
            });
        }
        return new Counting(new RuleDecision(rule, key, permitKey, limit(), decision), counted);
    }

    /** A rule's decision on a request, and how to take the request back from the rule's counter. */
    record Counting(RuleDecision outcome, Counted counted) {
    }

    /**
     * The outcome of a store call, waited for; its failure thrown as the store's synchronous calls throw it, with the
     * request's key {@linkplain KeyMask masked} (adapters log what propagates, and a store may name the key).
     */
    static <T> T join(CompletionStage<T> call, String key) {
        try {
            return call.toCompletableFuture().join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            throw KeyMask.redacted(cause instanceof RuntimeException failure ? failure : e, key);
        } catch (RuntimeException e) {
            throw KeyMask.redacted(e, key);
        }
    }

    /**
     * {@code command} executed on {@code counterKey}, waited for ({@link CounterStore#execute}: a local store answers
     * with no future); a failure thrown with the key masked.
     */
    private static <T> T executed(CounterStore store, String counterKey, Command<T> command, String key) {
        try {
            return store.execute(counterKey, command);
        } catch (RuntimeException e) {
            throw KeyMask.redacted(e, key);
        }
    }

    /** The counter of the request's tier among {@code counters}: the default one for a rule without tiers. */
    private Counter tierCounter(Counters counters, @Nullable PathPattern pattern, RequestContext context) {
        return tierKey == null ? counters.defaults() : counters.of(context.resolve(tierKey, pattern));
    }
}
