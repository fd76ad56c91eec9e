package dev.sluice.rules;

import static dev.sluice.rules.JsonFields.choice;
import static dev.sluice.rules.JsonFields.duration;
import static dev.sluice.rules.JsonFields.integer;
import static dev.sluice.rules.JsonFields.list;
import static dev.sluice.rules.JsonFields.nonBlank;
import static dev.sluice.rules.JsonFields.string;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.rules.JsonTree.Node;
import dev.sluice.rules.JsonTree.Type;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A JSON rules file, read strictly: unknown fields, wrong types, missing required fields, duplicate ids and values
 * the limits or algorithms cannot take are {@link RulesException}s naming the file, line, column, JSON path and what
 * was expected. The format is described in the README (Rules). Immutable and thread-safe.
 */
public final class RulesFile {

    private static final List<String> TOP_FIELDS = List.of("clientAddress", "rules");
    private static final List<String> CLIENT_ADDRESS_FIELDS = List.of("trustedProxies", "header");
    private static final List<String> RULE_FIELDS = List.of("id", "match", "key", "limits", "algorithm", "cost", "mode",
            "tiers", "exempt", "onMissingKey", "fallbackKey", "response", "maxDelay");
    private static final List<String> MATCH_FIELDS = List.of("paths", "methods", "host");
    private static final List<String> KEY_FIELDS = List.of("type", "name", "parts");
    private static final List<String> LIMIT_FIELDS = List.of("permits", "period", "capacity", "name");
    private static final List<String> TIER_FIELDS = List.of("key", "levels");
    private static final List<String> EXEMPT_FIELDS = List.of("addresses", "keys");
    private static final List<String> RESPONSE_FIELDS = List.of("status", "message");
    private static final List<String> ALGORITHMS = Arrays.stream(Algorithm.values())
            .map(a -> a.name().toLowerCase(Locale.ROOT)).toList();
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

    /** The file's bytes; a failure to read them is a {@link RulesException} naming the file. */
    static byte[] readBytes(Path file) {
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
        ByteBuffer bytes = ByteBuffer.wrap(content);
        try {
            return parse(name, StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString());
        } catch (CharacterCodingException e) {
            // The decoder stops at the start of the malformed sequence.
            throw notUtf8(name, content, bytes.position());
        }
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

    /** The trusted proxies and forwarding header configured in the file; {@link ClientAddresses#direct()} if none. */
    public ClientAddresses clientAddresses() {
        return clientAddresses;
    }

    private static ClientAddresses clientAddresses(Node node) {
        JsonFields fields = new JsonFields(node, CLIENT_ADDRESS_FIELDS);
        List<String> proxies = list(fields.required("trustedProxies"), false, RulesFile::addressOrBlock);
        ClientAddresses.Header header = ClientAddresses.Header.X_FORWARDED_FOR;
        if (fields.has("header")) {
            String chosen = choice(fields.required("header"), HEADERS);
            header = Arrays.stream(ClientAddresses.Header.values())
                    .filter(h -> h.headerName().equals(chosen)).findFirst().orElseThrow();
        }
        return ClientAddresses.behindProxies(proxies, header);
    }

    private static String addressOrBlock(Node node) {
        String text = string(node);
        try {
            CidrSet.parse(List.of(text));
        } catch (IllegalArgumentException e) {
            throw node.error(e.getMessage());
        }
        return text;
    }

    private static Rule rule(Node node, Map<String, Node> ids) {
        JsonFields fields = new JsonFields(node, RULE_FIELDS);
        Node idNode = fields.required("id");
        String id = string(idNode);
        if (!Rule.isValidId(id)) {
            throw idNode.expected(Rule.ID_EXPECTED);
        }
        Node first = ids.putIfAbsent(id, idNode);
        if (first != null) {
            throw idNode.error("duplicate rule id \"" + id + "\", first defined at line " + first.line);
        }
        Rule.Builder rule = Rule.builder(id).at(node.location());
        if (fields.has("match")) {
            match(fields.required("match"), rule);
        }
        if (fields.has("key")) {
            rule.key(key(fields.required("key"), false));
        }
        Algorithm algorithm = fields.has("algorithm")
                ? Algorithm.valueOf(choice(fields.required("algorithm"), ALGORITHMS).toUpperCase(Locale.ROOT))
                : Algorithm.TOKEN_BUCKET;
        rule.algorithm(algorithm);
        List<Limit> limits = limits(fields.required("limits"), algorithm, id, null);
        rule.limits(limits.toArray(new Limit[0]));
        long smallestCapacity = Policy.of(algorithm, limits).capacity();
        if (fields.has("tiers")) {
            smallestCapacity = Math.min(smallestCapacity, tiers(fields.required("tiers"), algorithm, id, rule));
        }
        if (fields.has("cost")) {
            rule.cost(integer(fields.required("cost"), 1, smallestCapacity));
        }
        if (fields.has("mode")) {
            rule.mode(Mode.valueOf(choice(fields.required("mode"), List.of("enforce", "shadow"))
                    .toUpperCase(Locale.ROOT)));
        }
        if (fields.has("exempt")) {
            JsonFields exempt = new JsonFields(fields.required("exempt"), EXEMPT_FIELDS);
            if (exempt.has("addresses")) {
                rule.exemptAddresses(list(exempt.required("addresses"), false, RulesFile::addressOrBlock));
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
            Node delayNode = fields.required("maxDelay");
            Duration delay = duration(delayNode);
            if (!Rule.isValidMaxDelay(delay)) {
                throw delayNode.expected(Rule.MAX_DELAY_EXPECTED);
            }
            rule.maxDelay(delay);
        }
        try {
            return rule.build();
        } catch (IllegalArgumentException e) {
            throw node.error(e.getMessage());
        }
    }

    private static void match(Node node, Rule.Builder rule) {
        JsonFields match = new JsonFields(node, MATCH_FIELDS);
        rule.paths(list(match.required("paths"), true, path -> {
            String pattern = string(path);
            try {
                PathPattern.parse(pattern);
            } catch (IllegalArgumentException e) {
                throw path.error(e.getMessage());
            }
            return pattern;
        }).toArray(new String[0]));
        if (match.has("methods")) {
            rule.methods(list(match.required("methods"), true, method -> {
                String text = string(method);
                if (!text.matches("[A-Za-z]{1,20}")) {
                    throw method.expected("an HTTP method such as \"GET\"");
                }
                return text;
            }).toArray(new String[0]));
        }
        if (match.has("host")) {
            Node host = match.required("host");
            if (!string(host).matches("(\\*\\.)?[A-Za-z0-9.-]+(:\\d+)?|\\[[0-9A-Fa-f:.]+](:\\d+)?")) {
                throw host.expected("a host name such as \"api.example.com\" or \"*.example.com\"");
            }
            rule.host(string(host));
        }
    }

    private static KeySpec key(Node node, boolean inComposite) {
        JsonFields key = new JsonFields(node, KEY_FIELDS);
        Node typeNode = key.required("type");
        KeySpec.Kind kind = KeySpec.kindOf(choice(typeNode, KEY_TYPES));
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

    private static List<Limit> limits(Node node, Algorithm algorithm, String id, String tier) {
        if (node.type == Type.ARRAY && node.elements().size() > Policy.MAX_LIMITS) {
            throw node.error("a policy holds at most " + Policy.MAX_LIMITS + " limits, got " + node.elements().size());
        }
        return list(node, true, limit -> limit(limit, algorithm, id, tier));
    }

    private static Limit limit(Node node, Algorithm algorithm, String id, String tier) {
        JsonFields fields = new JsonFields(node, LIMIT_FIELDS);
        long permits = integer(fields.required("permits"), 1, Limit.MAX_PERMITS);
        Node periodNode = fields.required("period");
        Duration period = duration(periodNode);
        if (period.isZero() || period.isNegative() || period.compareTo(Limit.MAX_PERIOD) > 0) {
            throw periodNode.expected("a period from 1ns to " + Limit.MAX_PERIOD.toDays() + "d");
        }
        Limit limit = Limit.of(permits, period);
        Node capacityNode = fields.optional("capacity");
        try {
            if (capacityNode != null) {
                limit = limit.withCapacity(integer(capacityNode, 1, Limit.MAX_PERMITS));
            }
            limit = fields.has("name") ? limit.named(nonBlank(fields.required("name")))
                    : Rule.defaultName(limit, id, tier);
            algorithm.validate(limit);
        } catch (IllegalArgumentException e) {
            throw (capacityNode != null ? capacityNode : node).error(e.getMessage());
        }
        return limit;
    }

    /** Adds the tiers to {@code rule}; returns the smallest capacity among them. */
    private static long tiers(Node node, Algorithm algorithm, String id, Rule.Builder rule) {
        JsonFields tiers = new JsonFields(node, TIER_FIELDS);
        rule.tierKey(key(tiers.required("key"), false));
        Node levels = tiers.required("levels");
        if (levels.type != JsonTree.Type.OBJECT || levels.fields().isEmpty()) {
            throw levels.expected("an object of at least one tier, such as {\"premium\": [limits]}");
        }
        long smallest = Long.MAX_VALUE;
        for (Map.Entry<String, Node> level : levels.fields().entrySet()) {
            if (level.getKey().isBlank()) {
                throw level.getValue().error("a tier needs a non-empty name");
            }
            List<Limit> limits = limits(level.getValue(), algorithm, id, level.getKey());
            rule.tier(level.getKey(), limits);
            smallest = Math.min(smallest, Policy.of(algorithm, limits).capacity());
        }
        return smallest;
    }

    private static void missingKey(JsonFields fields, Rule.Builder rule) {
        boolean fallback = fields.has("onMissingKey")
                && choice(fields.required("onMissingKey"), List.of("skip", "fallback")).equals("fallback");
        if (fallback) {
            rule.fallbackKey(nonBlank(fields.required("fallbackKey")));
        } else if (fields.has("fallbackKey")) {
            throw fields.required("fallbackKey").error("\"fallbackKey\" needs \"onMissingKey\": \"fallback\"");
        }
    }

    /** The rules as a set of their own, without annotation rules. */
    public RuleSet toRuleSet() {
        return RuleSet.combine(this, List.of());
    }

    @Override
    public String toString() {
        return "RulesFile[" + name + ", " + rules.size() + " rules]";
    }
}
