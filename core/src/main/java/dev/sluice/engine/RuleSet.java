package dev.sluice.engine;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.rules.AnnotationRules;
import dev.sluice.rules.Estimate;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleLimits;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.file.RulesFile;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.PathIndex;
import dev.sluice.rules.match.PathPattern;
import dev.sluice.rules.match.RequestView;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.LimitOverrides;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * An immutable set of compiled rules, and the engine entry point for adapters: {@link #evaluate} matches a request,
 * counts it once per matching rule, and returns the verdict.
 *
 * <p>Rules are compiled once, when the set is built: path patterns go into a segment trie and annotation rules into a
 * map by resource method, so matching a request costs about the same with a thousand rules as with ten; each rule's
 * counter names and escaped key values are made then too. The request path is normalized once per request
 * ({@code //}, {@code ;params}, {@code .}, {@code ..} and percent-escapes), so every spelling of a path meets the same
 * rules.
 *
 * <p>A set never changes; a reload builds a new one ({@link ReloadingRuleSet}), so a request evaluated against one
 * set sees no mix of old and new rules. Thread-safe.
 */
public final class RuleSet {

    private static final RuleSet EMPTY = new RuleSet(List.of(), ClientAddresses.direct());

    /** The estimates of a set without rules in a unit other than requests: none, and no array made per request. */
    private static final long[] NO_ESTIMATES = new long[0];
    private static final @Nullable String[] NO_KEYS = new String[0];

    private final List<Rule> rules;
    private final List<CompiledRule> compiled;
    private final ClientAddresses clientAddresses;
    private final PathIndex pathIndex = new PathIndex();
    private final Map<Method, int[]> byResourceMethod;
    /** Whether a rule has limits in a unit other than requests, whose requests reserve an estimate. */
    private final boolean metered;

    private RuleSet(List<Rule> rules, ClientAddresses clientAddresses) {
        this.rules = List.copyOf(rules);
        this.clientAddresses = Objects.requireNonNull(clientAddresses, "clientAddresses");
        Map<String, Rule> ids = new HashMap<>();
        Map<Method, List<Integer>> methods = new HashMap<>();
        List<CompiledRule> compiledRules = new ArrayList<>(this.rules.size());
        for (int i = 0; i < this.rules.size(); i++) {
            Rule rule = this.rules.get(i);
            Rule duplicate = ids.putIfAbsent(rule.id(), rule);
            if (duplicate != null) {
                throw rule.error("duplicate rule id '" + rule.id() + "', also defined at " + duplicate.origin());
            }
            if (!rule.defined()) {
                throw rule.error("rule '" + rule.id() + "' has no limits and no rules file rule with its id defines"
                        + " them");
            }
            if (rule.match().matchesNothing()) {
                throw rule.error("rule '" + rule.id() + "' has no \"match\" and no annotated method with its id");
            }
            compiledRules.add(new CompiledRule(rule, this.clientAddresses));
            for (PathPattern pattern : rule.match().pathPatterns()) {
                pathIndex.add(pattern, i);
            }
            for (Method method : rule.match().resourceMethods()) {
                methods.computeIfAbsent(method, m -> new ArrayList<>()).add(i);
            }
        }
        this.compiled = List.copyOf(compiledRules);
        this.metered = compiledRules.stream().anyMatch(CompiledRule::meters);
        Map<Method, int[]> byMethod = new HashMap<>();
        methods.forEach((method, indexes) ->
                byMethod.put(method, indexes.stream().mapToInt(Integer::intValue).toArray()));
        this.byResourceMethod = Map.copyOf(byMethod);
    }

    /** A set of no rules: every request passes uncounted. */
    public static RuleSet empty() {
        return EMPTY;
    }

    /**
     * The rules, each with limits and something to match; client addresses resolved by {@code clientAddresses}.
     *
     * @throws RulesException for duplicate ids, a rule without limits or without anything to match
     */
    public static RuleSet of(List<Rule> rules, ClientAddresses clientAddresses) {
        return new RuleSet(rules, clientAddresses);
    }

    /**
     * The rules of {@code file}, without annotation rules; client addresses resolved as the file says.
     *
     * @throws RulesException under the conditions of {@link #of(List, ClientAddresses)}
     */
    public static RuleSet of(RulesFile file) {
        return combine(file, List.of());
    }

    /**
     * Merges annotation rules ({@link AnnotationRules}) with a rules file's. Annotation rules of one id (from several
     * methods) become one rule matching all those methods, and must agree on their limits. A file rule with the same id
     * as an annotation rule replaces its limits, key, algorithm and everything else but keeps matching the annotated
     * methods (as well as the file rule's own paths, if any): operators change limits without recompiling. Client
     * addresses are resolved as the file says.
     *
     * @throws RulesException for conflicting annotations, an annotation naming a rule the file lacks, and the
     *     conditions of {@link #of}
     */
    public static RuleSet combine(RulesFile file, Collection<Rule> annotationRules) {
        return combine(file, annotationRules, file.clientAddresses());
    }

    /** Like {@link #combine(RulesFile, Collection)}, with client addresses resolved by {@code clientAddresses}. */
    static RuleSet combine(RulesFile file, Collection<Rule> annotationRules, ClientAddresses clientAddresses) {
        Map<String, Rule> annotated = new LinkedHashMap<>();
        for (Rule rule : annotationRules) {
            annotated.merge(rule.id(), rule, AnnotationRules::merge);
        }
        List<Rule> merged = new ArrayList<>();
        for (Rule rule : file.rules()) {
            Rule annotation = annotated.remove(rule.id());
            merged.add(annotation == null ? rule : rule.withResourceMethods(annotation.match().resourceMethods()));
        }
        merged.addAll(annotated.values());
        return new RuleSet(merged, clientAddresses);
    }

    /** The rules, in order. */
    public List<Rule> rules() {
        return rules;
    }

    /** The rule with this id, if any. */
    public Optional<Rule> rule(String id) {
        return rules.stream().filter(rule -> rule.id().equals(id)).findFirst();
    }

    /**
     * {@code override} as these rules apply it: checked against its rule, its key (if any) escaped and bounded as
     * requests' keys of the rule resolve, so that it meets them, and its limits that bear {@link Limit#of}'s default
     * name named as the rules file names a rule's ({@code api:100/1m}).
     *
     * @throws IllegalArgumentException naming the rule and the problem: no rule of its id, limits for a rule with a
     *     concurrency limit alone, or limits the rule's algorithm cannot take
     */
    public LimitOverride check(LimitOverride override) {
        Rule rule = rule(override.ruleId()).orElseThrow(() -> new IllegalArgumentException("no rule '"
                + override.ruleId() + "' among the rules in force " + rules.stream().map(Rule::id).toList()));
        override.checkAppliesTo("rule '" + rule.id() + "'", rule.requestLimits().map(RuleLimits::defaults));
        LimitOverride named = override.kind() != LimitOverride.Kind.LIMITS ? override
                : override.withLimits(override.limits().stream().map(limit -> ruleNamed(limit, rule.id())).toList());
        return named.key().map(key -> named.withTarget(LimitOverride.Target.key(rule.id(), keyValue(rule, key))))
                .orElse(named);
    }

    /**
     * {@code limit} named as the rules file names a rule's limits ({@code api:100/1m}) when it has {@link Limit#of}'s
     * default name ({@code 100/1m}); as it is otherwise.
     */
    private static Limit ruleNamed(Limit limit, String id) {
        boolean defaultName = limit.name().equals(Limit.of(limit.permits(), limit.period()).name());
        return defaultName ? Rule.defaultName(limit, id, null) : limit;
    }

    /**
     * {@code key} of {@code rule} as requests' keys resolve (escaped and bounded; an IP address of an {@code ip} key
     * as its client's key, an IPv6 address its network).
     */
    String keyValue(Rule rule, String key) {
        return CompiledRule.asKeyValue(rule.key().spec(), key, clientAddresses);
    }

    /** The overrides of {@code overrides} that name no rule of these: they apply to nothing here. */
    public List<LimitOverride> unmatched(List<LimitOverride> overrides) {
        return overrides.stream().filter(override -> rule(override.ruleId()).isEmpty()).toList();
    }

    /** The rules matching {@code request}, in rule order, without counting anything. */
    public List<Rule> match(RequestView request) {
        List<Rule> matched = new ArrayList<>();
        for (PathIndex.Target target : matching(new RequestContext(request, clientAddresses))) {
            matched.add(compiled.get(target.ruleIndex()).rule());
        }
        return matched;
    }

    /**
     * Matches {@code request} and counts it in {@code store}: one {@link Command.Count} per matching rule (a
     * rule's limits are one policy, decided atomically), skipping rules whose key the request lacks (without a fallback
     * key) or that exempt the request. All or nothing across rules: when an enforcing rule rejects the request, every
     * rule that granted it, shadow rules included, takes it back ({@link Counted#giveBack()}), and its outcome is then
     * its state after that; so the verdict's retry is when every matched rule would grant the same request. A request
     * only one rule counts is counted with {@link Command.Decide}, as it has nothing to take back; a store of
     * another library keeps the count ({@link Counted#kept}). See {@code docs/design/all-or-nothing.md}. A rule's
     * concurrency limit takes a permit ({@link Command.Acquire}) once every rate limit granted the request,
     * so a request they reject holds none; a request a concurrency limit rejects is given back like any other; an
     * allowed request holds its permits until the adapter {@linkplain Evaluation#end releases} them. Nothing the
     * request contains makes it throw; the store's failures propagate, with the request's key {@linkplain KeyMask
     * masked} out of their messages.
     */
    public Evaluation evaluate(RequestView request, CounterStore store) {
        return evaluate(request, store, null);
    }

    /**
     * Like {@link #evaluate(RequestView, CounterStore)} for a request that another adapter has already evaluated (the
     * servlet filter in front of a Jersey application): rules whose id is among {@code counted}'s outcomes are not
     * counted again. The result holds {@code counted}'s outcomes followed by those of the rules counted now, so its
     * verdict and headers cover both; when a rule counted now rejects the request, {@code counted}'s grants are taken
     * back too, those it counted with others (a rule it counted alone keeps its count).
     *
     * @param counted the earlier evaluation of this request, or {@code null} when there is none
     */
    public Evaluation evaluate(RequestView request, CounterStore store, @Nullable Evaluation counted) {
        return evaluate(request, store, counted, Permits.NONE).join();
    }

    /**
     * Like {@link #evaluate(RequestView, CounterStore, Evaluation)}, taking concurrency permits as {@code permits}
     * says: telling its events, and, with a queue, letting a request over a rule's concurrency limit wait for a permit
     * up to the rule's {@link Rule#permitWait()}, after this node's earlier waiters of the key. The rate limits count
     * the request once, when it arrives; a request that waits keeps those counts and the permits it took meanwhile, and
     * gives them all back when its wait ends without a permit (a rejection, as any other). The future is complete on
     * return unless the request waits; it then completes on {@code permits}' continuation executor. Cancelling it (the
     * client went away) leaves the queue and gives back everything the request took. The store's failures before any
     * wait propagate as from the other forms; after a wait, they complete the future exceptionally, the request's
     * counts given back.
     *
     * @param counted the earlier evaluation of this request, or {@code null} when there is none
     */
    public CompletableFuture<Evaluation> evaluate(RequestView request, CounterStore store,
                                                  @Nullable Evaluation counted, Permits permits) {
        RequestContext context = new RequestContext(request, clientAddresses);
        List<RuleDecision> outcomes = new ArrayList<>(2);
        List<Counted> counts = new ArrayList<>(2);
        List<Reservation> reservations = List.of();
        Set<String> countedIds = Set.of();
        if (counted != null && counted.matched()) {
            countedIds = new HashSet<>();
            for (RuleDecision outcome : counted.outcomes()) {
                outcomes.add(outcome);
                countedIds.add(outcome.rule().id());
            }
            counts.addAll(counted.counts());
            reservations = new ArrayList<>(counted.reservations());
        }
        List<PathIndex.Target> targets = matching(context);
        // With rules in a unit other than requests, keys and estimates first: most rule sets have none, and skip it.
        @Nullable String[] keys = metered ? new String[targets.size()] : NO_KEYS;
        long[] estimates = metered ? new long[targets.size()] : NO_ESTIMATES;
        for (int i = 0; i < keys.length; i++) {
            PathIndex.Target target = targets.get(i);
            CompiledRule rule = compiled.get(target.ruleIndex());
            if (countedIds.contains(rule.rule().id())) {
                continue;
            }
            String key = rule.keyOf(target.pattern(), context);
            keys[i] = key;
            if (key != null && rule.meters()) {
                // Before anything is counted: a request whose estimate is refused is counted under no rule.
                estimates[i] = rule.estimateOf(context);
                if (estimates[i] == Estimate.INVALID) {
                    giveBack(outcomes, counts);
                    return CompletableFuture.completedFuture(Evaluation.refused(rule.rule(), rule.refusal(context),
                            outcomes, counts, reservations));
                }
            }
        }
        boolean rejected = false;
        LimitOverrides overrides = store.services().overrides();
        LimitOverrides.Active active = overrides.active();
        // A request one rule alone counts has nothing to take back: counted as before, which a store may batch.
        boolean undoable = outcomes.size() + decisions(targets) > 1;
        List<CompiledRule> holding = List.of();
        List<String> holdingKeys = List.of();
        for (int i = 0; i < targets.size(); i++) {
            PathIndex.Target target = targets.get(i);
            CompiledRule rule = compiled.get(target.ruleIndex());
            if (countedIds.contains(rule.rule().id())) {
                continue;
            }
            String key = metered ? keys[i] : rule.keyOf(target.pattern(), context);
            if (key == null) {
                continue;
            }
            Optional<LimitOverride> override = active.isEmpty() ? Optional.empty() : active.find(rule.rule().id(), key);
            if (override.isPresent() && override.get().kind() != LimitOverride.Kind.LIMITS) {
                if (override.get().kind() == LimitOverride.Kind.BLOCKED) {
                    rejected |= add(rule.blocked(key, override.get(), overrides.now()), outcomes, counts);
                }
                continue;
            }
            if (rule.counts()) {
                rejected |= add(override.isPresent() ? rule.count(key, override.get(), store, undoable)
                        : rule.count(key, target.pattern(), context, store, undoable), outcomes, counts);
            }
            if (rule.meters()) {
                if (reservations.isEmpty()) {
                    reservations = new ArrayList<>(1);
                }
                rejected |= add(rule.reserve(key, target.pattern(), context, estimates[i], store, permits.events(),
                        reservations), outcomes, counts);
            }
            if (rule.holds()) {
                if (holding.isEmpty()) {
                    holding = new ArrayList<>(2);
                    holdingKeys = new ArrayList<>(2);
                }
                holding.add(rule);
                holdingKeys.add(key);
            }
        }
        if (rejected) {
            giveBack(outcomes, counts);
        }
        if (rejected || holding.isEmpty()) {
            // Most requests: no permit to take, so no taking state or continuation made per request.
            return CompletableFuture.completedFuture(Evaluation.of(outcomes, counts, reservations));
        }
        // Permits are taken once every rate limit granted: a request a rate limit rejects holds none, even briefly.
        return new PermitTaking(holding, holdingKeys, outcomes, counts, reservations, store, permits).from(0);
    }

    /** The number of decisions the rules of {@code targets} make: one per rate policy, one per concurrency limit. */
    private int decisions(List<PathIndex.Target> targets) {
        int decisions = 0;
        for (PathIndex.Target target : targets) {
            CompiledRule rule = compiled.get(target.ruleIndex());
            decisions += (rule.counts() ? 1 : 0) + (rule.meters() ? 1 : 0) + (rule.holds() ? 1 : 0);
        }
        return decisions;
    }

    /** Adds the counting's outcome and count; whether an enforcing rule rejected the request. */
    static boolean add(CompiledRule.Counting counting, List<RuleDecision> outcomes, List<Counted> counts) {
        outcomes.add(counting.outcome());
        counts.add(counting.counted());
        return counting.outcome().enforced() && !counting.outcome().decision().allowed();
    }

    /**
     * Takes the rejected request back from every rule that granted it, all at once, and puts each one's state after
     * that in its outcome; nothing is left to take back afterwards.
     */
    static void giveBack(List<RuleDecision> outcomes, List<Counted> counts) {
        int[] granted = new int[outcomes.size()];
        List<CompletionStage<Decision>> givenBack = new ArrayList<>(outcomes.size());
        for (int i = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i).decision().allowed()) {
                granted[givenBack.size()] = i;
                givenBack.add(counts.get(i).giveBack());
            }
        }
        for (int g = 0; g < givenBack.size(); g++) {
            int i = granted[g];
            CompletionStage<Decision> after = givenBack.get(g);
            RuleDecision outcome = outcomes.get(i);
            outcomes.set(i, new RuleDecision(outcome.rule(), outcome.key(), outcome.counterKey(), outcome.quota(),
                    CompiledRule.join(after, outcome.key())));
            counts.set(i, Counted.kept(outcomes.get(i).decision()));
        }
    }

    /**
     * The rules matching the request, in rule order, one target each: the first pattern that matched (null when
     * matched by resource method). Of those whose path (or resource method) and method match, the rules restricted to
     * a host are those whose host the request names, or all of them when it names none of theirs.
     */
    private List<PathIndex.Target> matching(RequestContext context) {
        List<PathIndex.Target> targets = new ArrayList<>(4);
        pathIndex.collect(context.path(), targets);
        // Asked only when a rule matches by method: an adapter may have to look the request's route up to answer.
        Method resourceMethod = byResourceMethod.isEmpty() ? null : context.resourceMethod();
        int[] byMethod = resourceMethod == null ? null : byResourceMethod.get(resourceMethod);
        if (byMethod != null) {
            for (int index : byMethod) {
                targets.add(new PathIndex.Target(index, null));
            }
        }
        if (!inRuleOrder(targets)) {
            targets.sort(Comparator.comparingInt(PathIndex.Target::ruleIndex));
        }
        int kept = 0;
        int previous = -1;
        boolean hostNamed = false;
        for (PathIndex.Target target : targets) {
            CompiledRule rule = compiled.get(target.ruleIndex());
            if (target.ruleIndex() != previous && rule.matchesMethod(context)) {
                previous = target.ruleIndex();
                targets.set(kept++, target);
                hostNamed |= rule.matchesHost(context);
            }
        }
        if (hostNamed) {
            kept = keepRulesOfTheHost(targets, kept, context);
        }
        return kept == targets.size() ? targets : targets.subList(0, kept);
    }

    /*
     * Why a host rule meets a request of another host unless that host is another rule's: the host is what the client
     * says (the Host header, or HTTP/2's authority), and an application answers any host unless it routes by host. If
     * a rule for api.example.com skipped every request naming another host, Host: 127.0.0.1, a host with a trailing
     * dot, another port or no Host at all (HTTP/1.0) would reach the same resource uncounted. So a host picks among
     * the host rules of a request only when it names one of them; naming none, the request meets them all.
     */

    /**
     * Keeps, of the first {@code kept} targets, those of rules without a host and those whose host the request names
     * (one of them does), in order; the number kept.
     */
    private int keepRulesOfTheHost(List<PathIndex.Target> targets, int kept, RequestContext context) {
        int ofTheHost = 0;
        for (int i = 0; i < kept; i++) {
            CompiledRule rule = compiled.get(targets.get(i).ruleIndex());
            if (!rule.hasHost() || rule.matchesHost(context)) {
                targets.set(ofTheHost++, targets.get(i));
            }
        }
        return ofTheHost;
    }

    private static boolean inRuleOrder(List<PathIndex.Target> targets) {
        for (int i = 1; i < targets.size(); i++) {
            if (targets.get(i - 1).ruleIndex() > targets.get(i).ruleIndex()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "RuleSet[" + rules.size() + " rules, " + clientAddresses + "]";
    }
}
