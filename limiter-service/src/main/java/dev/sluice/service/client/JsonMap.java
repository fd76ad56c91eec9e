package dev.sluice.service.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** JSON in and out for the client, on Jackson's streaming API (which Sluice already brings): objects as maps. */
final class JsonMap {

    /** Refuses an answer that repeats a member, as strict parsers do: which of two values would be meant? */
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private JsonMap() {
    }

    /** A JSON object as a map: strings, longs, booleans, lists and maps. */
    static Map<String, Object> parse(String json) {
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object: " + abbreviated(json));
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> object = (Map<String, Object>) Objects.requireNonNull(value(parser), "an object");
            return object;
        } catch (IOException e) {
            throw new IllegalArgumentException("not a JSON object: " + abbreviated(json), e);
        }
    }

    private static @Nullable Object value(JsonParser parser) throws IOException {
        switch (parser.currentToken()) {
            case START_OBJECT -> {
                Map<String, Object> object = new LinkedHashMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    object.put(name, value(parser));
                }
                return object;
            }
            case START_ARRAY -> {
                List<Object> array = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    array.add(value(parser));
                }
                return array;
            }
            case VALUE_NUMBER_INT -> {
                return parser.getLongValue();
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return parser.getBooleanValue();
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> {
                return parser.getText();
            }
        }
    }

    /** The body of a batch acquire. */
    static String batch(List<LimiterClient.SlotRequest> requests, long maxWaitMs) {
        StringWriter out = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeNumberField("maxWaitMs", maxWaitMs);
            json.writeArrayFieldStart("requests");
            for (LimiterClient.SlotRequest request : requests) {
                json.writeStartObject();
                json.writeStringField("id", request.id());
                if (request.key() != null) {
                    json.writeStringField("key", request.key());
                }
                json.writeNumberField("cost", request.cost());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static String abbreviated(String text) {
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }
}
