package dev.sluice.service;

import static dev.sluice.internal.json.JsonFields.bool;
import static dev.sluice.internal.json.JsonFields.integer;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.json.JsonFields;
import dev.sluice.internal.json.JsonTree.Node;
import dev.sluice.internal.json.JsonTree;
import dev.sluice.rules.ActualCost;
import dev.sluice.rules.InvalidValueException;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.file.LimitFields;
import dev.sluice.rules.file.RulesFile;
import dev.sluice.store.CounterKeys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A JSON file of limits by id, as a limiter service offers them to its clients: each id a policy (on the stepped
 * sliding window unless it says otherwise), a concurrency limit, or both, counted once for the id or once per key
 * under it.
 *
 * <pre>{@code
 * {"limits": {"partner-api": {"permits": 10, "period": "1m"},
 *             "github": {"permits": 5000, "period": "1h", "perKey": true},
 *             "exports": {"concurrency": 4, "maxHold": "10m"}}}
 * }</pre>
 *
 * <p>An id takes one limit inline or a {@code limits} array of them (all must pass), and optionally {@code algorithm}
 * and {@code perKey}; {@code concurrency} (permits in flight) and {@code maxHold} as in the rules file, read by the
 * same code. A limit with a {@code unit} other than requests (such as {@code "tokens"}) counts a cost known only when
 * a call ends: a worker reserves its estimate and settles the actual cost (one unit per id beside requests), at most
 * {@code maxActual} (by default {@value ActualCost#DEFAULT_MAX_CAPACITIES} times the unit's capacity). Read as
 * strictly as the rules file, with the same errors (file, line, column, JSON path, what was expected). Immutable
 * and thread-safe. The full form: {@code docs/design/rules.md}.
 */
public final class LimitsFile {

    private static final List<String> TOP_FIELDS = List.of("limits");
    private static final List<String> ENTRY_FIELDS;

    static {
        List<String> fields = new ArrayList<>(List.of("limits", "algorithm", "perKey", "concurrency", "maxHold",
                "maxActual"));
        fields.addAll(LimitFields.FIELDS.stream().filter(field -> !field.equals("name")).toList());
        ENTRY_FIELDS = List.copyOf(fields);
    }

    /** The algorithm of an id that names none: it tells a client exactly when its next request fits. */
    public static final Algorithm DEFAULT_ALGORITHM = Algorithm.STEPPED_SLIDING_WINDOW;

    private final String name;
    private final Map<String, Entry> entries;

    private LimitsFile(String name, Map<String, Entry> entries) {
        this.name = name;
        this.entries = entries;
    }

    /**
     * One id's limits: a rate policy of requests, one in another unit, a concurrency limit, or several of them.
     */
    public static final class Entry {
        private final String id;
        private final @Nullable Policy policy;
        private final @Nullable Policy metered;
        private final @Nullable ConcurrencyLimit concurrency;
        private final long maxActual;
        private final boolean perKey;
        private final String counterPrefix;
        private final String meteredPrefix;
        private final String permitPrefix;

        Entry(String id, @Nullable Policy policy, @Nullable Policy metered, @Nullable ConcurrencyLimit concurrency,
              boolean perKey, OptionalLong maxActual) {
            if (policy == null && metered == null && concurrency == null) {
                throw new IllegalArgumentException("limit '" + id + "' has neither a rate nor a concurrency limit");
            }
            if (metered == null && maxActual.isPresent()) {
                throw new IllegalArgumentException("limit '" + id + "' has no limits in a unit other than requests to"
                        + " settle at a maxActual");
            }
            this.id = id;
            this.policy = policy;
            this.metered = metered;
            this.concurrency = concurrency;
            this.maxActual = metered == null ? 0 : maxActual.orElseGet(() -> ActualCost.defaultMax(metered));
            this.perKey = perKey;
            // Not a rule's key: "/" is in no rule id, so these counters are never taken for a rule's.
            this.counterPrefix = policy == null ? "" : "limits/" + CounterKeys.prefix(id, policy);
            this.meteredPrefix = metered == null ? "" : "limits/" + CounterKeys.prefix(id, metered);
            this.permitPrefix = concurrency == null ? "" : "limits/" + CounterKeys.prefix(id, concurrency);
        }

        public String id() {
            return id;
        }

        /** The rate limits; empty for an id of a concurrency limit alone. */
        public Optional<Policy> policy() {
            return Optional.ofNullable(policy);
        }

        /**
         * The limits in a unit other than requests (tokens, bytes), which a call reserves at an estimate and settles at
         * its actual cost; empty for an id of requests alone.
         */
        public Optional<Policy> metered() {
            return Optional.ofNullable(metered);
        }

        /**
         * The largest actual cost a settle of the id's {@linkplain #metered() unit} takes: its {@code maxActual}, by
         * default {@value ActualCost#DEFAULT_MAX_CAPACITIES} times the unit's capacity; 0 for an id without a unit.
         * A debt of it locks a key for at most the time {@code docs/design/costs.md} gives.
         */
        public long maxActual() {
            return maxActual;
        }

        /** The concurrency limit: at most so many permits of the id (or of each key under it) held at once. */
        public Optional<ConcurrencyLimit> concurrency() {
            return Optional.ofNullable(concurrency);
        }

        /** Whether each key under the id has counters of its own; otherwise the id has one. */
        public boolean perKey() {
            return perKey;
        }

        /**
         * The store key that counts {@code key} under this id ({@code ""} for an id without keys): the id, a
         * fingerprint of its policy (changed limits count afresh, as a rule's do) and the key, escaped and bounded as
         * a rule's key values are (a key over 128 characters is replaced by its hash).
         *
         * @throws IllegalStateException for an id without rate limits
         */
        public String counterKey(String key) {
            if (policy == null) {
                throw new IllegalStateException("limit '" + id + "' has no rate limits");
            }
            return counterPrefix + CounterKeys.part(key);
        }

        /**
         * The store key that counts {@code key} under this id in its {@linkplain #metered() unit}, as
         * {@link #counterKey} but with the fingerprint of those limits.
         *
         * @throws IllegalStateException for an id without limits in a unit other than requests
         */
        public String meteredKey(String key) {
            if (metered == null) {
                throw new IllegalStateException("limit '" + id + "' has no limits in a unit other than requests");
            }
            return meteredPrefix + CounterKeys.part(key);
        }

        /**
         * The store key of the concurrency permits of {@code key} under this id, as {@link #counterKey} but with the
         * fingerprint of the concurrency limit.
         *
         * @throws IllegalStateException for an id without a concurrency limit
         */
        public String permitKey(String key) {
            if (concurrency == null) {
                throw new IllegalStateException("limit '" + id + "' has no concurrency limit");
            }
            return permitPrefix + CounterKeys.part(key);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry other && id.equals(other.id) && Objects.equals(policy, other.policy)
                    && Objects.equals(metered, other.metered) && Objects.equals(concurrency, other.concurrency)
                    && perKey == other.perKey && maxActual == other.maxActual;
        }

        @Override
        public int hashCode() {
            return Objects.hash(id, policy, metered, concurrency, perKey, maxActual);
        }

        @Override
        public String toString() {
            return "LimitsFile.Entry[" + id + (policy == null ? "" : " " + policy)
                    + (metered == null ? "" : " " + metered) + (concurrency == null ? "" : " " + concurrency)
                    + (perKey ? " per key" : "") + "]";
        }
    }

    /**
     * Reads and parses {@code file} (UTF-8); messages name it by its file name.
     *
     * @throws RulesException when the file cannot be read or is invalid
     */
    public static LimitsFile read(Path file) {
        return parse(String.valueOf(file.getFileName()), RulesFile.readBytes(file));
    }

    /**
     * Parses a limits document from its bytes, which must be UTF-8; {@code name} names it in messages.
     *
     * @throws RulesException when it is invalid, or not UTF-8
     */
    public static LimitsFile parse(String name, byte[] content) {
        return parse(name, RulesFile.utf8(name, content));
    }

    /**
     * Parses a limits document; {@code name} names it in messages.
     *
     * @throws RulesException when it is invalid
     */
    public static LimitsFile parse(String name, String content) {
        JsonFields top = new JsonFields(JsonTree.parse(name, content), TOP_FIELDS);
        Node limits = top.required("limits");
        if (limits.type != JsonTree.Type.OBJECT || limits.fields().isEmpty()) {
            throw limits.expected("an object of at least one limit by id, such as {\"partner-api\": "
                    + "{\"permits\": 10, \"period\": \"1m\"}}");
        }
        Map<String, Entry> entries = new LinkedHashMap<>();
        for (Map.Entry<String, Node> field : limits.fields().entrySet()) {
            entries.put(field.getKey(), entry(field.getKey(), field.getValue()));
        }
        return new LimitsFile(name, java.util.Collections.unmodifiableMap(entries));
    }

    private static Entry entry(String id, Node node) {
        try {
            Rule.builder(id);
        } catch (InvalidValueException e) {
            throw node.error("expected " + e.expectation() + ", got " + InvalidValueException.quoted(id));
        }
        JsonFields fields = new JsonFields(node, ENTRY_FIELDS);
        Algorithm algorithm = fields.has("algorithm") ? LimitFields.algorithm(fields.required("algorithm"))
                : DEFAULT_ALGORITHM;
        boolean perKey = fields.has("perKey") && bool(fields.required("perKey"));
        LimitFields.Policies policies = new LimitFields.Policies(null, null);
        if (fields.has("limits")) {
            for (String inline : List.of("permits", "period", "capacity", "unit")) {
                if (fields.has(inline)) {
                    throw fields.required(inline).error("give either \"limits\" or one limit inline (\"permits\", "
                            + "\"period\"), not both");
                }
            }
            policies = LimitFields.policies(fields.required("limits"), algorithm, id, null);
        } else if (fields.has("permits") || fields.has("period")) {
            policies = LimitFields.policies(fields, node, algorithm, id);
        } else if (!fields.has("concurrency")) {
            throw node.expected("an object with \"permits\" and \"period\", \"limits\", or \"concurrency\"");
        }
        @Nullable Policy policy = policies.requests();
        if (policy == null && policies.metered() == null && fields.has("algorithm")) {
            throw fields.required("algorithm").error("\"algorithm\" is the rate limits' algorithm; this id has a"
                    + " concurrency limit only");
        }
        @Nullable ConcurrencyLimit concurrency = null;
        if (fields.has("concurrency")) {
            concurrency = RulesFile.concurrency(fields, id);
        } else if (fields.has("maxHold")) {
            throw fields.required("maxHold").error("\"maxHold\" bounds a concurrency limit's permits; this id has no"
                    + " \"concurrency\"");
        }
        OptionalLong maxActual = OptionalLong.empty();
        if (fields.has("maxActual")) {
            Node maxNode = fields.required("maxActual");
            @Nullable Policy units = policies.metered();
            if (units == null) {
                throw maxNode.error("\"maxActual\" bounds the actual cost settled in a unit; this id has no limits in"
                        + " a unit other than requests");
            }
            // An estimate may be as large as the capacity: a settle must be able to charge it whole.
            maxActual = OptionalLong.of(integer(maxNode, units.capacity(), Limit.MAX_PERMITS));
        }
        return new Entry(id, policy, policies.metered(), concurrency, perKey, maxActual);
    }

    /** The file's name, as used in messages. */
    public String name() {
        return name;
    }

    /** Every id's limits, in file order. */
    public List<Entry> entries() {
        return List.copyOf(entries.values());
    }

    /** The limits of {@code id}; empty when the file has none of that id. */
    public Optional<Entry> find(String id) {
        return Optional.ofNullable(entries.get(id));
    }

    @Override
    public String toString() {
        return "LimitsFile[" + name + ", " + entries.size() + " ids]";
    }
}
