package dev.sluice.internal.json;

import dev.sluice.internal.DurationText;
import dev.sluice.internal.SettingNames;
import dev.sluice.internal.json.JsonTree.Node;
import dev.sluice.internal.json.JsonTree.Type;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Reads the fields of one JSON object strictly: unknown fields (unless {@link #skippingUnknown}), missing required
 * fields and values of the wrong type are {@link JsonException}s at the offending value. Used by one thread.
 */
public final class JsonFields {

    private final Node object;
    private final Map<String, Node> fields;

    /** Checks that {@code node} is an object whose fields are all among {@code allowed}. */
    public JsonFields(Node node, List<String> allowed) {
        this(node);
        for (Map.Entry<String, Node> field : fields.entrySet()) {
            if (!allowed.contains(field.getKey())) {
                String nearest = SettingNames.nearestTo(field.getKey(), allowed)
                        .map(near -> "; did you mean \"" + near + "\"?").orElse(".");
                throw field.getValue().error("unknown field \"" + field.getKey() + "\"" + nearest
                        + " Expected one of " + String.join(", ", allowed));
            }
        }
    }

    private JsonFields(Node node) {
        if (node.type != Type.OBJECT) {
            throw node.expected("an object");
        }
        this.object = node;
        this.fields = node.fields();
    }

    /** Checks that {@code node} is an object, whatever its fields: for a format a newer release may extend. */
    public static JsonFields skippingUnknown(Node node) {
        return new JsonFields(node);
    }

    public boolean has(String name) {
        return fields.containsKey(name);
    }

    /** The field's value; a missing field is an error at the object. */
    public Node required(String name) {
        Node value = fields.get(name);
        if (value == null) {
            throw object.error("missing required field \"" + name + "\"");
        }
        return value;
    }

    /** The field's value; null when absent. */
    public @Nullable Node optional(String name) {
        return fields.get(name);
    }

    public static String string(Node node) {
        if (node.type != Type.STRING) {
            throw node.expected("a string");
        }
        return (String) node.content();
    }

    public static String nonBlank(Node node) {
        String text = string(node);
        if (text.isBlank()) {
            throw node.expected("a non-empty string");
        }
        return text;
    }

    public static boolean bool(Node node) {
        if (node.type != Type.BOOLEAN) {
            throw node.expected("true or false");
        }
        return (Boolean) node.content();
    }

    public static long integer(Node node, long min, long max) {
        if (node.type != Type.INTEGER) {
            throw node.expected("an integer between " + min + " and " + max);
        }
        BigInteger value = (BigInteger) node.content();
        if (value.compareTo(BigInteger.valueOf(min)) < 0 || value.compareTo(BigInteger.valueOf(max)) > 0) {
            throw node.expected("an integer between " + min + " and " + max);
        }
        return value.longValueExact();
    }

    public static Duration duration(Node node) {
        Optional<Duration> duration = node.type == Type.STRING ? DurationText.parse(string(node)) : Optional.empty();
        return duration.orElseThrow(() -> node.expected(DurationText.EXPECTED));
    }

    /** The elements of an array, each converted; {@code nonEmpty} makes an empty array an error. */
    public static <T> List<T> list(Node node, boolean nonEmpty, Function<Node, T> element) {
        List<T> values = new ArrayList<>();
        forEach(node, nonEmpty, item -> values.add(element.apply(item)));
        return values;
    }

    /** Hands each element of an array to {@code element}; {@code nonEmpty} makes an empty array an error. */
    public static void forEach(Node node, boolean nonEmpty, Consumer<Node> element) {
        if (node.type != Type.ARRAY || nonEmpty && node.elements().isEmpty()) {
            throw node.expected(nonEmpty ? "a non-empty array" : "an array");
        }
        node.elements().forEach(element);
    }

    /** The string value among {@code choices} (ignoring case, and "-" versus "_"), as written in {@code choices}. */
    public static String choice(Node node, List<String> choices) {
        String expectation = "one of \"" + String.join("\", \"", choices) + "\"";
        if (node.type != Type.STRING) {
            throw node.expected(expectation);
        }
        String text = comparable((String) node.content());
        return choices.stream().filter(choice -> comparable(choice).equals(text)).findFirst()
                .orElseThrow(() -> node.expected(expectation));
    }

    private static String comparable(String text) {
        return text.replace('-', '_').toLowerCase(Locale.ROOT);
    }
}
