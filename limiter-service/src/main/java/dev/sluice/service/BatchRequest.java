package dev.sluice.service;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST limits/acquire}: {@code {"maxWaitMs": 5000, "requests": [{"id": "a", "key": "k", "cost":
 * 2}, ...]}}, read strictly (unknown or repeated members, wrong types and more than {@value #MAX_REQUESTS} requests
 * are 400s naming the member). Values stay text here and are checked as the single-request parameters are.
 */
record BatchRequest(@Nullable String maxWaitMs, List<Item> requests) {

    static final int MAX_REQUESTS = 100;

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(8).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    /** One request of the batch; {@code key} and {@code cost} null when absent. */
    record Item(String id, @Nullable String key, @Nullable String cost) {
    }

    static BatchRequest parse(@Nullable String body) {
        if (body == null || body.isBlank()) {
            throw Problems.invalid("body", "expected a JSON object such as {\"requests\": [{\"id\": \"partner-api\"}]},"
                    + " got nothing");
        }
        try (JsonParser parser = JSON.createParser(body)) {
            expect(parser.nextToken() == JsonToken.START_OBJECT, "body", "a JSON object");
            @Nullable String maxWait = null;
            @Nullable List<Item> items = null;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                parser.nextToken();
                switch (name) {
                    case "maxWaitMs" -> {
                        expect(parser.currentToken() == JsonToken.VALUE_NUMBER_INT, "maxWaitMs", "an integer");
                        maxWait = parser.getText();
                    }
                    case "requests" -> items = items(parser);
                    default -> throw Problems.invalid(name, "unknown member; expected maxWaitMs or requests");
                }
            }
            expect(parser.nextToken() == null, "body", "one JSON object and nothing after it");
            if (items == null) {
                throw Problems.invalid("requests", "expected an array of requests");
            }
            return new BatchRequest(maxWait, items);
        } catch (JsonProcessingException e) {
            // A value past the reader's constraints (a number of more than 1000 digits) comes without a location.
            @Nullable JsonLocation at = e.getLocation();
            throw Problems.invalid("body", "malformed JSON" + (at == null ? "" : " at line " + at.getLineNr()
                    + ", column " + at.getColumnNr()) + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IllegalStateException("reading a string cannot fail", e);
        }
    }

    private static List<Item> items(JsonParser parser) throws IOException {
        expect(parser.currentToken() == JsonToken.START_ARRAY, "requests", "an array of requests");
        List<Item> items = new ArrayList<>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            String at = "requests[" + items.size() + "]";
            expect(items.size() < MAX_REQUESTS, "requests", "at most " + MAX_REQUESTS + " requests");
            expect(parser.currentToken() == JsonToken.START_OBJECT, at, "an object such as {\"id\": \"partner-api\"}");
            @Nullable String id = null;
            @Nullable String key = null;
            @Nullable String cost = null;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                parser.nextToken();
                switch (name) {
                    case "id" -> id = text(parser, at + ".id");
                    case "key" -> key = text(parser, at + ".key");
                    case "cost" -> {
                        expect(parser.currentToken() == JsonToken.VALUE_NUMBER_INT, at + ".cost", "an integer");
                        cost = parser.getText();
                    }
                    default -> throw Problems.invalid(at + "." + name, "unknown member; expected id, key or cost");
                }
            }
            if (id == null) {
                throw Problems.invalid(at + ".id", "expected the id of a limit");
            }
            items.add(new Item(id, key, cost));
        }
        expect(!items.isEmpty(), "requests", "at least one request");
        return items;
    }

    private static String text(JsonParser parser, String member) throws IOException {
        expect(parser.currentToken() == JsonToken.VALUE_STRING, member, "a string");
        return parser.getText();
    }

    private static void expect(boolean condition, String member, String expectation) {
        if (!condition) {
            throw Problems.invalid(member, "expected " + expectation);
        }
    }
}
