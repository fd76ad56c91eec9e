package dev.sluice.rules;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import dev.sluice.annotation.RateLimitExempt;
import dev.sluice.annotation.RateLimited;
import dev.sluice.annotation.Sync;
import dev.sluice.internal.DurationText;
import dev.sluice.rules.match.RequestView;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Turns {@link RateLimited} annotations on resource classes and methods into {@link Rule}s that match requests routed
 * to those methods ({@link RequestView#resourceMethod()}).
 *
 * <p>A method's rules come from its own annotations, or, when it has none, from its class's; a method annotated
 * {@link RateLimitExempt} has none. Annotations sharing an id form one rule whose limits must all pass; they must
 * agree on everything but the limit. A class-level rule is one rule for all the methods it applies to, so they share
 * its counters. Mistakes are {@link RulesException}s naming the class and method. Stateless and thread-safe.
 */
public final class AnnotationRules {

    private AnnotationRules() {
    }

    /**
     * The rules of every public method of {@code resourceClass} (inherited ones included, {@code Object}'s excluded).
     *
     * @throws RulesException for a mistake in an annotation, naming the class and method
     */
    public static List<Rule> forClass(Class<?> resourceClass) {
        return forMethods(resourceClass, Arrays.asList(resourceClass.getMethods()));
    }

    /**
     * The rules of {@code methods} of {@code resourceClass}, {@code Object}'s, bridges and static methods excluded: for
     * frameworks whose handlers need not be public (Spring MVC), which give every method of the class hierarchy.
     *
     * @throws RulesException for a mistake in an annotation, naming the class and method
     */
    public static List<Rule> forMethods(Class<?> resourceClass, Collection<Method> candidates) {
        Map<String, Rule> rules = new LinkedHashMap<>();
        Method[] methods = candidates.toArray(Method[]::new);
        Arrays.sort(methods, (a, b) -> a.toGenericString().compareTo(b.toGenericString()));
        for (Method method : methods) {
            if (method.getDeclaringClass() == Object.class || method.isBridge() || method.isSynthetic()
                    || Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            for (Rule rule : forMethod(resourceClass, method)) {
                rules.merge(rule.id(), rule, AnnotationRules::merge);
            }
        }
        return List.copyOf(rules.values());
    }

    /**
     * The rules that apply to {@code method} of {@code resourceClass}, each matching only that method.
     *
     * @throws RulesException for a mistake in an annotation, naming the class and method
     */
    public static List<Rule> forMethod(Class<?> resourceClass, Method method) {
        if (method.isAnnotationPresent(RateLimitExempt.class)) {
            return List.of();
        }
        RateLimited[] annotations = method.getAnnotationsByType(RateLimited.class);
        boolean classLevel = annotations.length == 0;
        if (classLevel) {
            annotations = resourceClass.getAnnotationsByType(RateLimited.class);
        }
        String where = resourceClass.getName() + "#" + method.getName() + (classLevel ? " (from the class)" : "");
        Map<String, List<RateLimited>> byId = new LinkedHashMap<>();
        for (RateLimited annotation : annotations) {
            String id = idOf(annotation, resourceClass, classLevel ? null : method);
            byId.computeIfAbsent(id, k -> new ArrayList<>()).add(annotation);
        }
        List<Rule> rules = new ArrayList<>();
        byId.forEach((id, group) -> rules.add(rule(id, group, method, where)));
        return rules;
    }

    /**
     * {@code method} of {@code resourceClass} as {@link #forClass} sees it ({@link Class#getMethods()}), which rules
     * match by: for a method declared in an interface or superclass and implemented by the resource class, the
     * implementation; a method that is not public as it is.
     */
    public static Method routedMethod(Class<?> resourceClass, Method method) {
        try {
            return resourceClass.getMethod(method.getName(), method.getParameterTypes());
        } catch (NoSuchMethodException notPublic) {
            return method;
        }
    }

    private static String idOf(RateLimited annotation, Class<?> resourceClass, @Nullable Method method) {
        if (!annotation.id().isEmpty()) {
            return annotation.id();
        }
        if (!annotation.rule().isEmpty()) {
            return annotation.rule();
        }
        return method == null ? resourceClass.getName() : resourceClass.getName() + "#" + method.getName();
    }

    private static Rule rule(String id, List<RateLimited> group, Method method, String where) {
        String origin = "@RateLimited(id = \"" + id + "\") on " + where;
        RateLimited first = group.get(0);
        for (RateLimited other : group) {
            boolean agree = other.algorithm() == first.algorithm() && Arrays.equals(other.key(), first.key())
                    && other.cost() == first.cost() && other.shadow() == first.shadow()
                    && other.rule().equals(first.rule()) && other.onMissingKey() == first.onMissingKey()
                    && other.fallbackKey().equals(first.fallbackKey()) && other.lease() == first.lease()
                    && other.sync() == first.sync() && other.syncBudget() == first.syncBudget()
                    && other.permitWait().equals(first.permitWait());
            if (!agree) {
                throw new RulesException(origin + ": annotations sharing an id must agree on rule, algorithm, key,"
                        + " onMissingKey, fallbackKey, cost, shadow, lease, sync, syncBudget and permitWait");
            }
        }
        RateLimited metering = metering(group, origin);
        try {
            RuleBuilder rule = Rule.builder(id).origin(origin).resourceMethods(Set.of(method)).key(key(first.key()))
                    .cost(first.cost()).mode(first.shadow() ? Mode.SHADOW : Mode.ENFORCE)
                    .onMissingKey(first.onMissingKey());
            if (!first.fallbackKey().isEmpty()) {
                rule.fallbackKey(first.fallbackKey());
            }
            if (!first.rule().isEmpty()) {
                if (!first.id().isEmpty() && !first.id().equals(first.rule())) {
                    throw new IllegalArgumentException("rule = \"" + first.rule()
                            + "\" names a rules file rule; give no other id, got id = \"" + first.id() + "\"");
                }
                for (RateLimited annotation : group) {
                    if (annotation.permits() != 0 || !annotation.period().isEmpty() || annotation.capacity() != 0
                            || annotation.lease() || annotation.sync() != Sync.EXACT || annotation.syncBudget() != -1
                            || annotation.concurrency() != 0 || !annotation.maxHold().isEmpty()
                            || !annotation.permitWait().isEmpty() || !annotation.unit().isEmpty() || metering != null) {
                        throw new IllegalArgumentException("rule = \"" + first.rule() + "\" takes its limits from the"
                                + " rules file; give no permits, period, capacity, lease, sync, syncBudget,"
                                + " concurrency, maxHold, permitWait, unit, estimate or actualCost");
                    }
                }
                return rule.build();
            }
            List<Limit> limits = new ArrayList<>();
            List<Limit> metered = new ArrayList<>();
            Set<String> units = new LinkedHashSet<>();
            Set<ConcurrencyLimit> concurrency = new LinkedHashSet<>();
            for (RateLimited annotation : group) {
                if (annotation.concurrency() != 0 || !annotation.maxHold().isEmpty()) {
                    concurrency.add(concurrency(annotation, id));
                }
                if (!annotation.unit().isEmpty() && !annotation.unit().equals(Policy.REQUESTS)) {
                    units.add(annotation.unit());
                    metered.add(Rule.defaultName(limit(annotation), id, null, annotation.unit()));
                } else if (annotation.concurrency() == 0 || annotation.permits() != 0
                        || !annotation.period().isEmpty()) {
                    limits.add(Rule.defaultName(limit(annotation), id, null));
                }
            }
            if (units.size() > 1) {
                throw new IllegalArgumentException("annotations sharing an id count one unit beside requests, got "
                        + units);
            }
            if (!metered.isEmpty()) {
                rule.metered(Policy.of(first.algorithm(), metered).inUnit(units.iterator().next()));
            }
            if (metering != null) {
                if (metering.estimate().isEmpty()) {
                    throw new IllegalArgumentException("maxEstimate, defaultEstimate, actualCost and keepActualHeader"
                            + " go with an estimate; give estimate = \"header:...\" or another source");
                }
                rule.estimate(estimate(metering));
                if (!metering.actualCost().isEmpty() || metering.keepActualHeader()) {
                    rule.actualCost(actualCost(metering));
                }
            }
            if (concurrency.size() > 1) {
                throw new IllegalArgumentException("annotations sharing an id give at most one concurrency limit, got "
                        + concurrency);
            }
            concurrency.forEach(rule::concurrency);
            if (!first.permitWait().isEmpty()) {
                rule.permitWait(duration("permitWait", first.permitWait()));
            }
            if (!limits.isEmpty()) {
                rule.policy(Policy.of(first.algorithm(), limits));
            }
            if (first.syncBudget() != -1) {
                rule.syncBudget(first.syncBudget());
            }
            return rule.lease(first.lease()).sync(first.sync()).build();
        } catch (IllegalArgumentException e) {
            throw new RulesException(origin + ": " + e.getMessage(), e);
        }
    }

    /** The annotation's limit, unnamed. */
    private static Limit limit(RateLimited annotation) {
        if (annotation.permits() < 1) {
            throw new IllegalArgumentException("permits must be at least 1 (or name a rules file rule with rule = ...),"
                    + " got " + annotation.permits());
        }
        Limit limit = Limit.of(annotation.permits(), duration("period", annotation.period()));
        if (annotation.capacity() != 0) {
            limit = limit.withCapacity(annotation.capacity());
        }
        return limit;
    }

    /**
     * The annotation of {@code group} that says how requests are metered (estimate, its bounds, the actual cost), all
     * that say any agreeing; null when none does.
     */
    private static @Nullable RateLimited metering(List<RateLimited> group, String origin) {
        RateLimited found = null;
        for (RateLimited annotation : group) {
            boolean says = !annotation.estimate().isEmpty() || annotation.maxEstimate() != 0
                    || annotation.defaultEstimate() != 0 || !annotation.actualCost().isEmpty()
                    || annotation.keepActualHeader();
            if (!says) {
                continue;
            }
            if (found != null && !(found.estimate().equals(annotation.estimate())
                    && found.maxEstimate() == annotation.maxEstimate()
                    && found.defaultEstimate() == annotation.defaultEstimate()
                    && found.actualCost().equals(annotation.actualCost())
                    && found.keepActualHeader() == annotation.keepActualHeader())) {
                throw new RulesException(origin + ": annotations sharing an id that give an estimate must agree on"
                        + " estimate, maxEstimate, defaultEstimate, actualCost and keepActualHeader");
            }
            found = annotation;
        }
        return found;
    }

    /** The estimate given: {@code header:NAME}, {@code query:NAME}, {@code content-length} or {@code fixed:N}. */
    private static Estimate estimate(RateLimited annotation) {
        String text = annotation.estimate();
        int colon = text.indexOf(':');
        String kind = colon < 0 ? text : text.substring(0, colon);
        String name = colon < 0 ? "" : text.substring(colon + 1);
        Estimate estimate = switch (kind) {
            case "header" -> colon < 0 ? null : Estimate.header(name);
            case "query" -> colon < 0 ? null : Estimate.query(name);
            case "content-length" -> colon < 0 ? Estimate.contentLength() : null;
            case "fixed" -> colon < 0 || !name.matches("[0-9]{1,18}") ? null : Estimate.fixed(Long.parseLong(name));
            default -> null;
        };
        if (estimate == null) {
            throw new IllegalArgumentException("estimate: expected \"header:NAME\", \"query:NAME\","
                    + " \"content-length\" or \"fixed:N\", got \"" + text + "\"");
        }
        if (annotation.maxEstimate() != 0) {
            estimate = estimate.max(annotation.maxEstimate());
        }
        return annotation.defaultEstimate() == 0 ? estimate : estimate.orDefault(annotation.defaultEstimate());
    }

    /** The actual cost given: {@code header:NAME} or {@code attribute:NAME}. */
    private static ActualCost actualCost(RateLimited annotation) {
        String text = annotation.actualCost();
        int colon = text.indexOf(':');
        String kind = colon < 0 ? text : text.substring(0, colon);
        if (kind.equals("header") && colon > 0) {
            ActualCost header = ActualCost.header(text.substring(colon + 1));
            return annotation.keepActualHeader() ? header.keepingHeader() : header;
        }
        if (kind.equals("attribute") && colon > 0 && !annotation.keepActualHeader()) {
            return ActualCost.attribute(text.substring(colon + 1));
        }
        throw new IllegalArgumentException("actualCost: expected \"header:NAME\" or \"attribute:NAME\""
                + " (keepActualHeader only with a header), got \"" + text + "\"");
    }

    /** The annotation element {@code element}'s duration {@code text}; a clear error naming it otherwise. */
    private static Duration duration(String element, String text) {
        return DurationText.parse(text).orElseThrow(() -> new IllegalArgumentException(element + ": expected "
                + DurationText.EXPECTED + ", got \"" + text + "\""));
    }

    private static ConcurrencyLimit concurrency(RateLimited annotation, String id) {
        if (annotation.concurrency() < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1 when maxHold is given, got "
                    + annotation.concurrency());
        }
        ConcurrencyLimit limit = ConcurrencyLimit.of(annotation.concurrency());
        if (!annotation.maxHold().isEmpty()) {
            limit = ConcurrencyLimit.of(annotation.concurrency(), duration("maxHold", annotation.maxHold()));
        }
        return Rule.defaultName(limit, id);
    }

    private static KeySpec key(String[] parts) {
        if (parts.length == 0) {
            throw new IllegalArgumentException("key: expected at least one key, such as \"ip\"");
        }
        List<KeySpec> keys = Arrays.stream(parts).map(AnnotationRules::keyPart).toList();
        return keys.size() == 1 ? keys.get(0) : new KeySpec(KeySpec.Kind.COMPOSITE, "", keys);
    }

    private static KeySpec keyPart(String text) {
        try {
            return KeySpec.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("key \"" + text + "\": " + e.getMessage(), e);
        }
    }

    /** Two annotated rules of one id as one rule over both methods; they must agree on the definition. */
    public static Rule merge(Rule first, Rule second) {
        boolean sameDefinition = first.requestLimits().equals(second.requestLimits())
                && first.unitLimits().equals(second.unitLimits())
                && first.unitCosts().map(UnitCosts::estimate).equals(second.unitCosts().map(UnitCosts::estimate))
                && first.actualCost().equals(second.actualCost())
                && first.concurrency().equals(second.concurrency()) && first.permitWait().equals(second.permitWait())
                && first.key().spec().equals(second.key().spec())
                && first.cost() == second.cost() && first.mode() == second.mode();
        if (!sameDefinition) {
            throw new RulesException("rule '" + first.id() + "' is defined differently by " + first.origin() + " and "
                    + second.origin() + "; annotations sharing an id must agree on limits, key, cost, estimate and"
                    + " mode");
        }
        return first.withResourceMethods(second.match().resourceMethods());
    }
}
