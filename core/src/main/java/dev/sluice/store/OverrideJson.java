package dev.sluice.store;

import dev.sluice.Limit;
import dev.sluice.internal.json.JsonException;
import dev.sluice.internal.json.JsonFields;
import dev.sluice.internal.json.JsonObject;
import dev.sluice.internal.json.JsonTree;
import dev.sluice.internal.json.JsonTree.Node;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;

/**
 * The JSON text of a {@link LimitOverride} (format 1), what a store shared by several instances keeps: a text, so no
 * class of Sluice's travels between them. Readers skip fields they do not know and refuse a newer format. Stateless.
 */
final class OverrideJson {

    /** The format this release writes and reads. */
    static final int FORMAT = 1;

    private OverrideJson() {
    }

    static String write(LimitOverride override) {
        JsonObject json = new JsonObject().put("format", FORMAT).put("rule", override.ruleId());
        override.key().ifPresent(key -> json.put("key", key));
        return json.put("kind", override.kind().name().toLowerCase(Locale.ROOT))
                .putRaw("limits", JsonObject.array(override.limits().stream().map(limit -> new JsonObject()
                        .put("permits", limit.permits()).put("periodNanos", limit.periodNanos())
                        .put("capacity", limit.capacity()).put("name", limit.name())).toList()))
                .put("reason", override.reason()).put("setBy", override.setBy())
                .put("setAt", override.setAt().toString()).put("expiresAt", override.expiresAt().toString())
                .toString();
    }

    static LimitOverride read(String text) {
        try {
            JsonFields override = JsonFields.skippingUnknown(JsonTree.parse("override", text));
            long format = JsonFields.integer(override.required("format"), 0, Integer.MAX_VALUE);
            if (format != FORMAT) {
                throw new IllegalArgumentException("override of format " + format + ", this release reads " + FORMAT
                        + (format > FORMAT ? " (written by a newer release)" : ""));
            }
            String rule = text(override, "rule");
            LimitOverride.Builder builder = override.has("key") ? LimitOverride.forKey(rule, text(override, "key"))
                    : LimitOverride.forRule(rule);
            switch (JsonFields.choice(override.required("kind"), List.of("blocked", "exempt", "limits"))) {
                case "blocked" -> builder.blocked();
                case "exempt" -> builder.exempt();
                default -> builder.limits(JsonFields.list(override.required("limits"), false, OverrideJson::limit));
            }
            return builder.until(Instant.parse(text(override, "expiresAt"))).reason(text(override, "reason"))
                    .setBy(text(override, "setBy")).build(Instant.parse(text(override, "setAt")));
        } catch (JsonException | DateTimeParseException e) {
            throw new IllegalArgumentException("not an override's JSON: " + e.getMessage(), e);
        }
    }

    private static Limit limit(Node node) {
        JsonFields limit = JsonFields.skippingUnknown(node);
        return Limit.of(JsonFields.integer(limit.required("permits"), 0, Long.MAX_VALUE),
                Duration.ofNanos(JsonFields.integer(limit.required("periodNanos"), 0, Long.MAX_VALUE)),
                JsonFields.integer(limit.required("capacity"), 0, Long.MAX_VALUE), text(limit, "name"));
    }

    private static String text(JsonFields fields, String name) {
        return JsonFields.string(fields.required(name));
    }
}
