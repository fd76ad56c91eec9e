package dev.sluice.rules.file;

import static dev.sluice.internal.json.JsonFields.choice;
import static dev.sluice.internal.json.JsonFields.duration;
import static dev.sluice.internal.json.JsonFields.integer;
import static dev.sluice.internal.json.JsonFields.list;
import static dev.sluice.internal.json.JsonFields.nonBlank;
import static dev.sluice.internal.json.JsonFields.string;
import static dev.sluice.rules.file.RulesFile.at;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.json.JsonFields;
import dev.sluice.internal.json.JsonTree.Node;
import dev.sluice.rules.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Reads limits as rules files and the limiter service's limits file write them ({@code permits}, {@code period},
 * {@code capacity}, {@code name}, {@code unit}) and the algorithm that counts them, strictly: each error is located at
 * the value at fault and says what was expected. Stateless.
 */
public final class LimitFields {

    /** The fields of a limit. */
    public static final List<String> FIELDS = List.of("permits", "period", "capacity", "name", "unit");
    static final List<String> ALGORITHMS = Arrays.stream(Algorithm.values())
            .map(a -> a.name().toLowerCase(Locale.ROOT)).toList();
    private static final String PERIOD_EXPECTED = "a period from 1ns to " + Limit.MAX_PERIOD.toDays() + "d";

    private LimitFields() {
    }

    /**
     * A rule's (or a limits file id's) limits split by what they count: requests, and at most one other unit; either
     * may be null, not both.
     */
    public record Policies(@Nullable Policy requests, @Nullable Policy metered) {
    }

    /** A limit and what it counts, with the node of its {@code unit} (null when it counts requests, the default). */
    private record UnitLimit(Limit limit, String unit, @Nullable Node unitNode) {
    }

    /** The algorithm a field names, as the rules file spells algorithms ({@code stepped_sliding_window}). */
    public static Algorithm algorithm(Node node) {
        return Algorithm.valueOf(choice(node, ALGORITHMS).toUpperCase(Locale.ROOT));
    }

    /**
     * The policies of {@code algorithm} over the limits of the array {@code node}: those counting requests, and those
     * in one other unit (their {@code unit}); errors located at the array, or at the unit at fault.
     */
    public static Policies policies(Node node, Algorithm algorithm, String id, @Nullable String tier) {
        List<UnitLimit> limits = list(node, true, limit -> unitLimit(new JsonFields(limit, FIELDS), limit,
                algorithm, id, tier));
        List<Limit> requests = new ArrayList<>();
        List<Limit> metered = new ArrayList<>();
        @Nullable UnitLimit first = null;
        for (UnitLimit limit : limits) {
            if (limit.unitNode() == null) {
                requests.add(limit.limit());
                continue;
            }
            if (first != null && !first.unit().equals(limit.unit())) {
                throw limit.unitNode().error("a rule counts one unit beside requests: limits in " + first.unit()
                        + " and in " + limit.unit() + " need two rules");
            }
            first = first == null ? limit : first;
            metered.add(limit.limit());
        }
        Policy requestPolicy = requests.isEmpty() ? null : at(node, () -> Policy.of(algorithm, requests));
        Policy meteredPolicy = null;
        if (first != null) {
            UnitLimit unitLimit = first;
            meteredPolicy = at(Objects.requireNonNull(unitLimit.unitNode()),
                    () -> Policy.of(algorithm, metered).inUnit(unitLimit.unit()));
        }
        return new Policies(requestPolicy, meteredPolicy);
    }

    /**
     * The policy of the one limit given inline in the object {@code node} (read into {@code fields}, which may allow
     * other fields beside a limit's): of requests, or of its {@code unit}.
     */
    public static Policies policies(JsonFields fields, Node node, Algorithm algorithm, String id) {
        UnitLimit limit = unitLimit(fields, node, algorithm, id, null);
        Policy policy = Policy.of(algorithm, limit.limit());
        return limit.unitNode() == null ? new Policies(policy, null)
                : new Policies(null, policy.inUnit(limit.unit()));
    }

    /**
     * A limit of the fields of {@link #limit} and its {@code unit} (requests when it has none), its default name
     * naming the unit ({@code llm:10000 tokens/1m}).
     */
    private static UnitLimit unitLimit(JsonFields fields, Node node, Algorithm algorithm, String id,
                                       @Nullable String tier) {
        Node unitNode = fields.optional("unit");
        String unit = unitNode == null ? Policy.REQUESTS : nonBlank(unitNode);
        Limit limit = limit(fields, node, algorithm, id, tier, unit);
        if (unitNode == null || unit.equals(Policy.REQUESTS)) {
            return new UnitLimit(limit, Policy.REQUESTS, null);
        }
        at(unitNode, () -> Policy.of(algorithm, limit).inUnit(unit));
        return new UnitLimit(limit, unit, unitNode);
    }

    /**
     * The limit of the fields {@code permits}, {@code period}, {@code capacity} and {@code name} of the object
     * {@code node}, already read into {@code fields} (which may allow other fields beside them), valid for
     * {@code algorithm}, counting {@code unit} (its default name says one other than requests); its errors located at
     * the value at fault.
     */
    private static Limit limit(JsonFields fields, Node node, Algorithm algorithm, String id, @Nullable String tier,
                               String unit) {
        long permits = integer(fields.required("permits"), 1, Limit.MAX_PERMITS);
        Node periodNode = fields.required("period");
        Duration period = duration(periodNode);
        Limit limit;
        try {
            limit = Limit.of(permits, period);
        } catch (IllegalArgumentException e) {
            // The permits are in range, so the period is what the limit rejects: say so in the file's terms.
            throw periodNode.expected(PERIOD_EXPECTED);
        }
        Node capacityNode = fields.optional("capacity");
        if (capacityNode != null) {
            long capacity = integer(capacityNode, 1, Limit.MAX_PERMITS);
            Limit uncapped = limit;
            limit = at(capacityNode, () -> uncapped.withCapacity(capacity));
        }
        Node nameNode = fields.optional("name");
        Limit unnamed = limit;
        Limit named = nameNode == null ? Rule.defaultName(limit, id, tier, unit)
                : at(nameNode, () -> unnamed.named(string(nameNode)));
        // Asked here rather than left to Policy.of, so that what the algorithm rejects (a capacity that a window
        // cannot have) is located at the capacity.
        at(capacityNode != null ? capacityNode : node, () -> {
            algorithm.validate(named);
            return named;
        });
        return named;
    }
}
