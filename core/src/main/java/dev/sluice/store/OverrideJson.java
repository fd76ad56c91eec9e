package dev.sluice.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.Limit;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The JSON text of a {@link LimitOverride} (format 1), what a store shared by several instances keeps: a text, so no
 * class of Sluice's travels between them. Readers skip fields they do not know and refuse a newer format. Stateless.
 */
final class OverrideJson {

    /** The format this release writes and reads. */
    static final int FORMAT = 1;

    private static final JsonFactory FACTORY = new JsonFactory();

    private OverrideJson() {
    }

    static String write(LimitOverride override) {
        StringWriter text = new StringWriter();
        try (JsonGenerator json = FACTORY.createGenerator(text)) {
            json.writeStartObject();
            json.writeNumberField("format", FORMAT);
            json.writeStringField("rule", override.ruleId());
            if (override.key().isPresent()) {
                json.writeStringField("key", override.key().get());
            }
            json.writeStringField("kind", override.kind().name().toLowerCase(Locale.ROOT));
            json.writeArrayFieldStart("limits");
            for (Limit limit : override.limits()) {
                json.writeStartObject();
                json.writeNumberField("permits", limit.permits());
                json.writeNumberField("periodNanos", limit.periodNanos());
                json.writeNumberField("capacity", limit.capacity());
                json.writeStringField("name", limit.name());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeStringField("reason", override.reason());
            json.writeStringField("setBy", override.setBy());
            json.writeStringField("setAt", override.setAt().toString());
            json.writeStringField("expiresAt", override.expiresAt().toString());
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("a StringWriter does not fail", e);
        }
        return text.toString();
    }

    static LimitOverride read(String text) {
        try (JsonParser json = FACTORY.createParser(text)) {
            expect(json.nextToken(), JsonToken.START_OBJECT, "an object");
            int format = 0;
            String rule = "";
            String key = "";
            String kind = "";
            List<Limit> limits = new ArrayList<>();
            String reason = "";
            String setBy = "";
            Instant setAt = Instant.EPOCH;
            Instant expiresAt = Instant.EPOCH;
            while (json.nextToken() == JsonToken.FIELD_NAME) {
                String field = json.currentName();
                JsonToken value = json.nextToken();
                switch (field) {
                    case "format" -> format = json.getIntValue();
                    case "rule" -> rule = json.getText();
                    case "key" -> key = json.getText();
                    case "kind" -> kind = json.getText();
                    case "limits" -> {
                        expect(value, JsonToken.START_ARRAY, "limits as an array");
                        while (json.nextToken() == JsonToken.START_OBJECT) {
                            limits.add(readLimit(json));
                        }
                    }
                    case "reason" -> reason = json.getText();
                    case "setBy" -> setBy = json.getText();
                    case "setAt" -> setAt = Instant.parse(json.getText());
                    case "expiresAt" -> expiresAt = Instant.parse(json.getText());
                    default -> json.skipChildren();
                }
            }
            if (format != FORMAT) {
                throw new IllegalArgumentException("override of format " + format + ", this release reads " + FORMAT
                        + (format > FORMAT ? " (written by a newer release)" : ""));
            }
            LimitOverride.Builder builder = key.isEmpty() ? LimitOverride.forRule(rule) : LimitOverride.forKey(rule,
                    key);
            switch (kind) {
                case "blocked" -> builder.blocked();
                case "exempt" -> builder.exempt();
                case "limits" -> builder.limits(limits);
                default -> throw new IllegalArgumentException("override of unknown kind '" + kind + "'");
            }
            return builder.until(expiresAt).reason(reason).setBy(setBy).build(setAt);
        } catch (IOException | DateTimeParseException e) {
            throw new IllegalArgumentException("not an override's JSON: " + e.getMessage(), e);
        }
    }

    private static Limit readLimit(JsonParser json) throws IOException {
        long permits = 0;
        long periodNanos = 0;
        long capacity = 0;
        String name = "";
        while (json.nextToken() == JsonToken.FIELD_NAME) {
            String field = json.currentName();
            json.nextToken();
            switch (field) {
                case "permits" -> permits = json.getLongValue();
                case "periodNanos" -> periodNanos = json.getLongValue();
                case "capacity" -> capacity = json.getLongValue();
                case "name" -> name = json.getText();
                default -> json.skipChildren();
            }
        }
        return Limit.of(permits, Duration.ofNanos(periodNanos), capacity, name);
    }

    private static void expect(JsonToken token, JsonToken expected, String what) {
        if (token != expected) {
            throw new IllegalArgumentException("not an override's JSON: expected " + what + ", got " + token);
        }
    }
}
