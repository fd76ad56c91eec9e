package dev.sluice.internal.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.sluice.rules.SourceLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/*
 * Jackson's own tree (JsonNode) forgets where each value was, and a rules file error is only useful with a line and
 * column. So the file is read with the streaming parser into this small tree, in which every value keeps its location
 * and its JSON path. Duplicate field names, which Jackson's tree would silently resolve to the last value, are errors.
 */

/** A parsed JSON document whose values know their line, column and path. Immutable once parsed. */
public final class JsonTree {

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build())
            .build();

    public enum Type {
        OBJECT("an object"), ARRAY("an array"), STRING("a string"), INTEGER("an integer"), DECIMAL("a number"),
        BOOLEAN("a boolean"), NULL("null");

        final String description;

        Type(String description) {
            this.description = description;
        }
    }

    /** One value: its type, location, path and content. */
    public static final class Node {
        public final Type type;
        public final String source;
        public final int line;
        public final int column;
        public final String path;
        /** A String, BigInteger, decimal text, Boolean, map of fields or list of elements; null for JSON null. */
        public final @Nullable Object value;

        Node(Type type, String source, JsonLocation location, String path, @Nullable Object value) {
            this.type = type;
            this.source = source;
            this.line = location.getLineNr();
            this.column = location.getColumnNr();
            this.path = path;
            this.value = value;
        }

        /** The content of a value that is not JSON {@code null}: its type says what it is. */
        public Object content() {
            if (value == null) {
                throw new IllegalStateException("JSON null at " + path + " has no content");
            }
            return value;
        }

        public SourceLocation location() {
            return new SourceLocation(source, line, column, path);
        }

        /** The fields of an object, in file order. */
        @SuppressWarnings("unchecked")
        public Map<String, Node> fields() {
            return (Map<String, Node>) content();
        }

        /** The elements of an array. */
        @SuppressWarnings("unchecked")
        public List<Node> elements() {
            return (List<Node>) content();
        }

        /** A short rendering of the value for messages: strings quoted, containers by type. */
        public String shown() {
            return switch (type) {
                case STRING -> "\"" + abbreviate((String) content()) + "\"";
                case OBJECT, ARRAY -> type.description;
                default -> String.valueOf(value);
            };
        }

        /** The error "expected ..., got ..." at this value. */
        public JsonException expected(String expectation) {
            return error("expected " + expectation + ", got " + shown());
        }

        /** An error at this value. */
        public JsonException error(String problem) {
            return new JsonException(source, line, column, path, problem);
        }

        private static String abbreviate(String text) {
            String oneLine = text.replace("\n", "\\n").replace("\r", "\\r");
            return oneLine.length() > 60 ? oneLine.substring(0, 57) + "..." : oneLine;
        }
    }

    private JsonTree() {
    }

    /** Parses a whole document; malformed JSON is a {@link JsonException} at the offending character. */
    public static Node parse(String source, String content) {
        try (JsonParser parser = FACTORY.createParser(content)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw new JsonException(source, 1, 1, "$", "expected a JSON object, got an empty file");
            }
            Node root = read(parser, source, "$");
            if (parser.nextToken() != null) {
                JsonLocation at = parser.currentTokenLocation();
                throw new JsonException(source, at.getLineNr(), at.getColumnNr(), "$",
                        "unexpected content after the end of the document");
            }
            return root;
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation() == null ? JsonLocation.NA : e.getLocation();
            throw new JsonException(source, Math.max(1, at.getLineNr()), Math.max(1, at.getColumnNr()),
                    pathOf(e.getProcessor() instanceof JsonParser p ? p.getParsingContext() : null),
                    "malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("reading a string cannot fail", e);
        }
    }

    private static Node read(JsonParser parser, String source, String path) throws IOException {
        JsonLocation at = parser.currentTokenLocation();
        JsonToken token = parser.currentToken();
        switch (token) {
            case START_OBJECT -> {
                Map<String, Node> fields = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    JsonLocation nameAt = parser.currentTokenLocation();
                    String fieldPath = path + "." + name;
                    parser.nextToken();
                    Node value = read(parser, source, fieldPath);
                    if (fields.put(name, value) != null) {
                        throw new JsonException(source, nameAt.getLineNr(), nameAt.getColumnNr(), fieldPath,
                                "duplicate field \"" + name + "\"");
                    }
                }
                return new Node(Type.OBJECT, source, at, path, Collections.unmodifiableMap(fields));
            }
            case START_ARRAY -> {
                List<Node> elements = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    elements.add(read(parser, source, path + "[" + elements.size() + "]"));
                }
                return new Node(Type.ARRAY, source, at, path, List.copyOf(elements));
            }
            case VALUE_STRING -> {
                return new Node(Type.STRING, source, at, path, parser.getText());
            }
            case VALUE_NUMBER_INT -> {
                return new Node(Type.INTEGER, source, at, path, parser.getBigIntegerValue());
            }
            case VALUE_NUMBER_FLOAT -> {
                return new Node(Type.DECIMAL, source, at, path, parser.getText());
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return new Node(Type.BOOLEAN, source, at, path, token == JsonToken.VALUE_TRUE);
            }
            case VALUE_NULL -> {
                return new Node(Type.NULL, source, at, path, null);
            }
            default -> throw new JsonException(source, at.getLineNr(), at.getColumnNr(), path,
                    "unexpected " + token);
        }
    }

    /** The JSON path of a streaming context, such as {@code $.rules[1].limits}. */
    private static String pathOf(@Nullable JsonStreamContext context) {
        if (context == null || context.inRoot()) {
            return "$";
        }
        String parent = pathOf(context.getParent());
        if (context.inArray()) {
            return parent + "[" + Math.max(0, context.getCurrentIndex()) + "]";
        }
        return context.getCurrentName() == null ? parent : parent + "." + context.getCurrentName();
    }
}
