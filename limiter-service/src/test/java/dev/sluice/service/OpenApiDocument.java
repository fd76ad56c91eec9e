package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.http.StrictJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.util.Locale;

/** The service's OpenAPI document, read from the jar's resource, and answers checked against its schemas. */
final class OpenApiDocument {

    private static final ObjectMapper JSON = new ObjectMapper(StrictJson.factory());
    private static final JsonNode DOCUMENT = read();

    private OpenApiDocument() {
    }

    /** The document's operation {@code method} (lower case) of {@code path}, such as {@code /limits/{id}/delay}. */
    static JsonNode operation(String path, String method) {
        return DOCUMENT.path("paths").path(path).path(method.toLowerCase(Locale.ROOT));
    }

    /**
     * {@code body}, parsed, after checking it against the schema {@code schema} of the document's components: every
     * required member is there, and every member is declared, of its declared type.
     */
    static JsonNode conforming(String body, String schema) throws IOException {
        JsonNode declared = DOCUMENT.path("components").path("schemas").path(schema);
        assertThat(declared.isMissingNode()).as("schema %s", schema).isFalse();
        JsonNode answer = JSON.readTree(body);
        for (JsonNode required : declared.path("required")) {
            assertThat(answer.has(required.asText())).as("required member %s in %s", required, body).isTrue();
        }
        answer.fieldNames().forEachRemaining(name -> {
            JsonNode member = declared.path("properties").path(name);
            assertThat(member.isMissingNode()).as("member %s of %s is in %s", name, body, schema).isFalse();
            assertThat(typeOf(answer.get(name))).as("type of %s", name).isEqualTo(member.path("type").asText());
        });
        return answer;
    }

    /**
     * {@code response} is a 400 whose problem names {@code parameter}, as the document's operation {@code method} of
     * {@code documentedPath} says its 400s do.
     */
    static void assertBadRequest(HttpResponse<String> response, String parameter, String documentedPath,
                                 String method) throws IOException {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(operation(documentedPath, method).path("responses").path("400").path("description").asText())
                .contains("named in `parameter`");
        assertThat(conforming(response.body(), "Problem").path("parameter").asText()).isEqualTo(parameter);
    }

    private static String typeOf(JsonNode value) {
        if (value.isTextual()) {
            return "string";
        }
        if (value.isIntegralNumber()) {
            return "integer";
        }
        return value.getNodeType().name().toLowerCase(Locale.ROOT);
    }

    private static JsonNode read() {
        try (InputStream in = LimiterService.class.getResourceAsStream("openapi.json")) {
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
