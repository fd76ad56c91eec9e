package dev.sluice.rules.file;

import static dev.sluice.internal.json.JsonFields.bool;
import static dev.sluice.internal.json.JsonFields.choice;
import static dev.sluice.internal.json.JsonFields.duration;
import static dev.sluice.internal.json.JsonFields.forEach;
import static dev.sluice.internal.json.JsonFields.integer;
import static dev.sluice.internal.json.JsonFields.list;
import static dev.sluice.internal.json.JsonFields.nonBlank;
import static dev.sluice.internal.json.JsonFields.string;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.annotation.OnMissingKey;
import dev.sluice.annotation.Sync;
import dev.sluice.internal.json.JsonFields;
import dev.sluice.internal.json.JsonTree.Node;
import dev.sluice.internal.json.JsonTree;
import dev.sluice.rules.ActualCost;
import dev.sluice.rules.Estimate;
import dev.sluice.rules.InvalidValueException;
import dev.sluice.rules.KeySpec;
import dev.sluice.rules.Mode;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleBuilder;
import dev.sluice.rules.RuleResponse;
import dev.sluice.rules.RulesException;
import dev.sluice.rules.match.CidrSet;
import dev.sluice.rules.match.ClientAddresses;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A JSON rules file, read strictly: unknown fields, wrong types, missing required fields, duplicate ids and values
 * the limits or algorithms cannot take are {@link RulesException}s naming the file, line, column, JSON path and what
 * was expected. The format: {@code docs/rules.md}. Immutable and thread-safe.
 */
public final class RulesFile {

    private static final List<String> TOP_FIELDS = List.of("clientAddress", "rules");
    private static final List<String> CLIENT_ADDRESS_FIELDS = List.of("trustedProxies", "header", "ipv6Prefix");
    private static final List<String> RULE_FIELDS = List.of("id", "match", "key", "limits", "algorithm", "cost", "mode",
            "tiers", "exempt", "onMissingKey", "fallbackKey", "response", "maxDelay",
            "lease", "sync", "syncBudget", "concurrency", "maxHold", "wait", "estimate", "actual",
            "maxActual");
    private static final List<String> MATCH_FIELDS = List.of("paths", "methods", "host");
    private static final List<String> KEY_FIELDS = List.of("type", "name", "parts");
    private static final List<String> ESTIMATE_FIELDS = List.of("type", "name", "value", "max", "default");
    private static final List<String> ACTUAL_FIELDS = List.of("type", "name", "keep");
    private static final List<String> ESTIMATE_TYPES = Arrays.stream(Estimate.Source.values())
            .map(Estimate.Source::text).toList();
    private static final List<String> TIER_FIELDS = List.of("key", "levels");
    private static final List<String> EXEMPT_FIELDS = List.of("addresses", "keys");
    private static final List<String> RESPONSE_FIELDS = List.of("status", "message");
    private static final List<String> KEY_TYPES = Arrays.stream(KeySpec.Kind.values()).map(KeySpec.Kind::text).toList();
    private static final List<String> HEADERS = Arrays.stream(ClientAddresses.Header.values())
            .map(ClientAddresses.Header::headerName).toList();

    private final String name;
    private final List<Rule> rules;
    private final ClientAddresses clientAddresses;

    private RulesFile(String name, List<Rule> rules, ClientAddresses clientAddresses) {
        this.name = name;
        this.rules = List.copyOf(rules);
        this.clientAddresses = clientAddresses;
    }

    /** An empty file: no rules, no trusted proxies. For annotation rules only. */
    public static RulesFile empty() {
        return new RulesFile("(none)", List.of(), ClientAddresses.direct());
    }

    /**
     * Reads and parses {@code file} (UTF-8); messages name it by its file name.
     *
     * @throws RulesException when the file cannot be read or is invalid
     */
    public static RulesFile read(Path file) {
        return parse(String.valueOf(file.getFileName()), readBytes(file));
    }

    /** The text of {@code content}, which must be UTF-8; an error naming {@code name} and locating the first byte that
     *  is not. */
    public static String utf8(String name, byte[] content) {
        ByteBuffer bytes = ByteBuffer.wrap(content);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString();
        } catch (CharacterCodingException e) {
            // The decoder stops at the start of the malformed sequence.
            throw notUtf8(name, content, bytes.position());
        }
    }

    /** The file's bytes; a failure to read them is a {@link RulesException} naming the file. */
    public static byte[] readBytes(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new RulesException(file.getFileName() + ": cannot read " + file + ": " + e, e);
        }
    }

    /**
     * Parses a rules document from its bytes, which must be UTF-8; {@code name} names it in messages.
     *
     * @throws RulesException when it is invalid, or not UTF-8 (located at the first byte that is not)
     */
    public static RulesFile parse(String name, byte[] content) {
        return parse(name, utf8(name, content));
    }

    /**
     * The error at byte {@code offset}, the first that is not UTF-8, located by line and column as the JSON reader
     * locates characters (a line ends at "\n", "\r\n" or "\r"), so that it can be found in an editor.
     */
    private static RulesException notUtf8(String name, byte[] content, int offset) {
        String before = new String(content, 0, offset, StandardCharsets.UTF_8);
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < before.length(); i++) {
            char c = before.charAt(i);
            if (c == '\n' || c == '\r' && (i + 1 == before.length() || before.charAt(i + 1) != '\n')) {
                line++;
                lineStart = i + 1;
            }
        }
        return new RulesException(name, line, before.length() - lineStart + 1, "$", String.format(
                "not UTF-8 text: byte 0x%02X at offset %d does not begin or continue a UTF-8 character",
                content[offset] & 0xff, offset));
    }

    /**
     * Parses a rules document; {@code name} names it in messages.
     *
     * @throws RulesException when it is invalid
     */
    public static RulesFile parse(String name, String content) {
        Node root = JsonTree.parse(name, content);
        JsonFields top = new JsonFields(root, TOP_FIELDS);
        ClientAddresses clientAddresses = top.has("clientAddress")
                ? clientAddresses(top.required("clientAddress")) : ClientAddresses.direct();
        Map<String, Node> ids = new HashMap<>();
        List<Rule> rules = list(top.required("rules"), false, node -> rule(node, ids));
        return new RulesFile(name, rules, clientAddresses);
    }

    /** The file's name, as used in messages. */
    public String name() {
        return name;
    }

    /** The rules, in file order. */
    public List<Rule> rules() {
        return rules;
    }

    /**
     * The trusted proxies, forwarding header and IPv6 key prefix configured in the file;
     * {@link ClientAddresses#direct()} if none.
     */
    public ClientAddresses clientAddresses() {
        return clientAddresses;
    }

    private static ClientAddresses clientAddresses(Node node) {
        JsonFields fields = new JsonFields(node, CLIENT_ADDRESS_FIELDS);
        List<String> proxies = fields.has("trustedProxies")
                ? list(fields.required("trustedProxies"), false, RulesFile::addressOrBlock) : List.of();
        ClientAddresses.Header header = ClientAddresses.Header.X_FORWARDED_FOR;
        if (fields.has("header")) {
            String chosen = choice(fields.required("header"), HEADERS);
            header = Arrays.stream(ClientAddresses.Header.values())
                    .filter(h -> h.headerName().equals(chosen)).findFirst().orElseThrow();
        }
        int ipv6Prefix = fields.has("ipv6Prefix")
                ? (int) integer(fields.required("ipv6Prefix"), 1, ClientAddresses.MAX_IPV6_PREFIX)
                : ClientAddresses.DEFAULT_IPV6_PREFIX;
        return ClientAddresses.behindProxies(proxies, header).withIpv6Prefix(ipv6Prefix);
    }

    /** An address or CIDR block, checked one by one so that an error is located at the entry. */
    private static String addressOrBlock(Node node) {
        String text = string(node);
        at(node, () -> CidrSet.parse(List.of(text)));
        return text;
    }

    /*
     * Each value is handed to the rule's builder (or to Limit and Policy) as it is read, and what the builder rejects
     * is reported at that value (at()): the reader checks JSON types and shapes, the builder checks values, and
     * neither repeats the other. What only the whole rule can check (a cost against the smallest capacity) comes from
     * build(), located at the field it names.
     */
    private static Rule rule(Node node, Map<String, Node> ids) {
        JsonFields fields = new JsonFields(node, RULE_FIELDS);
        Node idNode = fields.required("id");
        String id = string(idNode);
        RuleBuilder rule = at(idNode, () -> Rule.builder(id)).definedAt(node.location());
        Node first = ids.putIfAbsent(id, idNode);
        if (first != null) {
            throw idNode.error("duplicate rule id \"" + id + "\", first defined at line " + first.line);
        }
        if (fields.has("match")) {
            match(fields.required("match"), rule);
        }
        if (fields.has("key")) {
            rule.key(key(fields.required("key"), false));
        }
        Algorithm algorithm = fields.has("algorithm")
                ? LimitFields.algorithm(fields.required("algorithm")) : Algorithm.TOKEN_BUCKET;
        if (fields.has("limits") || !fields.has("concurrency")) {
            LimitFields.Policies limits = LimitFields.policies(fields.required("limits"), algorithm, id, null);
            if (limits.requests() != null) {
                rule.policy(limits.requests());
            }
            if (limits.metered() != null) {
                rule.metered(limits.metered());
            }
        }
        if (fields.has("estimate")) {
            rule.estimate(estimate(fields.required("estimate")));
        }
        if (fields.has("actual")) {
            rule.actualCost(actualCost(fields.required("actual")));
        }
        if (fields.has("maxActual")) {
            rule.maxActualCost(integer(fields.required("maxActual"), 1, Limit.MAX_PERMITS));
        }
        if (fields.has("concurrency")) {
            rule.concurrency(concurrency(fields, id));
            if (fields.has("wait")) {
                Node wait = fields.required("wait");
                at(wait, () -> rule.permitWait(duration(wait)));
            }
        } else if (fields.has("maxHold")) {
            throw fields.required("maxHold").error("\"maxHold\" bounds a concurrency limit's permits; this rule has no"
                    + " \"concurrency\"");
        } else if (fields.has("wait")) {
            throw fields.required("wait").error("\"wait\" is how long a request waits for a concurrency permit; this"
                    + " rule has no \"concurrency\"");
        }
        if (fields.has("tiers")) {
            tiers(fields.required("tiers"), algorithm, id, rule);
        }
        if (fields.has("cost")) {
            rule.cost(integer(fields.required("cost"), 1, Limit.MAX_PERMITS));
        }
        if (fields.has("mode")) {
            rule.mode(Mode.valueOf(choice(fields.required("mode"), List.of("enforce", "shadow"))
                    .toUpperCase(Locale.ROOT)));
        }
        if (fields.has("exempt")) {
            JsonFields exempt = new JsonFields(fields.required("exempt"), EXEMPT_FIELDS);
            if (exempt.has("addresses")) {
                forEach(exempt.required("addresses"), false,
                        address -> at(address, () -> rule.exemptAddresses(List.of(string(address)))));
            }
            if (exempt.has("keys")) {
                rule.exemptKeys(list(exempt.required("keys"), false, JsonFields::nonBlank));
            }
        }
        missingKey(fields, rule);
        if (fields.has("response")) {
            JsonFields response = new JsonFields(fields.required("response"), RESPONSE_FIELDS);
            int status = (int) integer(response.required("status"), 400, 599);
            String message = response.has("message") ? string(response.required("message")) : null;
            rule.response(new RuleResponse(status, message));
        }
        if (fields.has("maxDelay")) {
            Node delay = fields.required("maxDelay");
            at(delay, () -> rule.maxDelay(duration(delay)));
        }
        if (fields.has("lease")) {
            rule.lease(bool(fields.required("lease")));
        }
        if (fields.has("sync")) {
            rule.sync(Sync.valueOf(choice(fields.required("sync"), List.of("exact", "synchronised"))
                    .toUpperCase(Locale.ROOT)));
        }
        if (fields.has("syncBudget")) {
            rule.syncBudget(integer(fields.required("syncBudget"), 0, Limit.MAX_PERMITS));
        }
        try {
            return rule.build();
        } catch (IllegalArgumentException e) {
            Node field = e instanceof InvalidValueException invalid ? fields.optional(invalid.field()) : null;
            if (field != null && e instanceof InvalidValueException invalid && !invalid.member().isEmpty()
                    && field.type == JsonTree.Type.OBJECT && field.fields().containsKey(invalid.member())) {
                field = field.fields().get(invalid.member());
            }
            throw field != null ? errorAt(field, e) : node.error(String.valueOf(e.getMessage()));
        }
    }

    /**
     * The concurrency limit of a rule's (or a limits file id's) {@code concurrency} (permits in flight) and optional
     * {@code maxHold}, named after the rule.
     */
    public static ConcurrencyLimit concurrency(JsonFields fields, String id) {
        long permits = integer(fields.required("concurrency"), 1, ConcurrencyLimit.MAX_PERMITS);
        Node holdNode = fields.optional("maxHold");
        ConcurrencyLimit limit = holdNode == null ? ConcurrencyLimit.of(permits)
                : at(holdNode, () -> ConcurrencyLimit.of(permits, duration(holdNode)));
        return Rule.defaultName(limit, id);
    }

    /**
     * What {@code step} makes of {@code node}'s value. An {@link IllegalArgumentException} it throws becomes an error
     * at the node: "expected ..., got" the value as the file spells it when the builder said what it expected
     * ({@link InvalidValueException}), else the exception's message.
     */
    static <T> T at(Node node, Supplier<T> step) {
        try {
            return step.get();
        } catch (IllegalArgumentException e) {
            throw errorAt(node, e);
        }
    }

    private static RulesException errorAt(Node node, IllegalArgumentException e) {
        return e instanceof InvalidValueException invalid ? node.expected(invalid.expectation())
                : node.error(String.valueOf(e.getMessage()));
    }

    private static void match(Node node, RuleBuilder rule) {
        JsonFields match = new JsonFields(node, MATCH_FIELDS);
        forEach(match.required("paths"), true, path -> at(path, () -> rule.paths(string(path))));
        if (match.has("methods")) {
            forEach(match.required("methods"), true, method -> at(method, () -> rule.methods(string(method))));
        }
        if (match.has("host")) {
            Node host = match.required("host");
            at(host, () -> rule.host(string(host)));
        }
    }

    private static KeySpec key(Node node, boolean inComposite) {
        JsonFields key = new JsonFields(node, KEY_FIELDS);
        Node typeNode = key.required("type");
        // choice() accepts only KEY_TYPES, every one a kind's text.
        KeySpec.Kind kind = KeySpec.kindOf(choice(typeNode, KEY_TYPES)).orElseThrow();
        if (kind == KeySpec.Kind.COMPOSITE) {
            if (inComposite) {
                throw typeNode.error("a composite key cannot contain another composite key");
            }
            if (key.has("name")) {
                throw key.required("name").error("a composite key takes no \"name\", only \"parts\"");
            }
            Node partsNode = key.required("parts");
            List<KeySpec> parts = list(partsNode, true, part -> key(part, true));
            if (parts.size() < 2) {
                throw partsNode.expected("an array of at least two keys");
            }
            return new KeySpec(kind, "", parts);
        }
        if (key.has("parts")) {
            throw key.required("parts").error("only a composite key has \"parts\"");
        }
        if (kind.named()) {
            return KeySpec.of(kind, nonBlank(key.required("name")));
        }
        if (key.has("name")) {
            throw key.required("name").error("key type " + kind.text() + " takes no \"name\"");
        }
        return new KeySpec(kind, "", List.of());
    }

    /** A rule's {@code estimate}: where a request's cost in its unit comes from, with its bounds. */
    private static Estimate estimate(Node node) {
        JsonFields fields = new JsonFields(node, ESTIMATE_FIELDS);
        Node typeNode = fields.required("type");
        Estimate.Source source = Estimate.Source.values()[ESTIMATE_TYPES.indexOf(choice(typeNode, ESTIMATE_TYPES))];
        boolean named = source == Estimate.Source.HEADER || source == Estimate.Source.QUERY;
        if (!named && fields.has("name")) {
            throw fields.required("name").error("an estimate of type " + source.text() + " takes no \"name\"");
        }
        if (source != Estimate.Source.FIXED && fields.has("value")) {
            throw fields.required("value").error("only a fixed estimate has a \"value\"");
        }
        Estimate estimate = switch (source) {
            case HEADER -> Estimate.header(nonBlank(fields.required("name")));
            case QUERY -> Estimate.query(nonBlank(fields.required("name")));
            case CONTENT_LENGTH -> Estimate.contentLength();
            case FIXED -> Estimate.fixed(integer(fields.required("value"), 1, Limit.MAX_PERMITS));
        };
        if (fields.has("max")) {
            estimate = estimate.max(integer(fields.required("max"), 1, Limit.MAX_PERMITS));
        }
        if (fields.has("default")) {
            estimate = estimate.orDefault(integer(fields.required("default"), 1, Limit.MAX_PERMITS));
        }
        return estimate;
    }

    /** A rule's {@code actual}: where a request's actual cost comes from when it ends. */
    private static ActualCost actualCost(Node node) {
        JsonFields fields = new JsonFields(node, ACTUAL_FIELDS);
        boolean header = choice(fields.required("type"), List.of("header", "attribute")).equals("header");
        String name = nonBlank(fields.required("name"));
        if (!header && fields.has("keep")) {
            throw fields.required("keep").error("only a response header is kept or stripped; an attribute takes no"
                    + " \"keep\"");
        }
        if (!header) {
            return ActualCost.attribute(name);
        }
        boolean keep = fields.has("keep") && bool(fields.required("keep"));
        return keep ? ActualCost.header(name).keepingHeader() : ActualCost.header(name);
    }

    /** Adds the tier key and the tiers' policies to {@code rule}. */
    private static void tiers(Node node, Algorithm algorithm, String id, RuleBuilder rule) {
        JsonFields tiers = new JsonFields(node, TIER_FIELDS);
        rule.tierKey(key(tiers.required("key"), false));
        Node levels = tiers.required("levels");
        if (levels.type != JsonTree.Type.OBJECT || levels.fields().isEmpty()) {
            throw levels.expected("an object of at least one tier, such as {\"premium\": [limits]}");
        }
        for (Map.Entry<String, Node> level : levels.fields().entrySet()) {
            if (level.getKey().isBlank()) {
                throw level.getValue().error("a tier needs a non-empty name");
            }
            LimitFields.Policies limits = LimitFields.policies(level.getValue(), algorithm, id, level.getKey());
            if (limits.requests() != null) {
                rule.tier(level.getKey(), limits.requests());
            }
            if (limits.metered() != null) {
                rule.meteredTier(level.getKey(), limits.metered());
            }
        }
    }

    /** {@code onMissingKey}: {@code fallback} (the default: {@code fallbackKey}, or the client) or {@code skip}. */
    private static void missingKey(JsonFields fields, RuleBuilder rule) {
        boolean skip = fields.has("onMissingKey")
                && choice(fields.required("onMissingKey"), List.of("skip", "fallback")).equals("skip");
        if (skip) {
            rule.onMissingKey(OnMissingKey.SKIP);
        }
        if (fields.has("fallbackKey")) {
            Node key = fields.required("fallbackKey");
            if (skip) {
                throw key.error("\"fallbackKey\" cannot be used with \"onMissingKey\": \"skip\"");
            }
            at(key, () -> rule.fallbackKey(string(key)));
        }
    }

    @Override
    public String toString() {
        return "RulesFile[" + name + ", " + rules.size() + " rules]";
    }
}
