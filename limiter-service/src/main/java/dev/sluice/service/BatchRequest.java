package dev.sluice.service;

import dev.sluice.internal.json.JsonException;
import dev.sluice.internal.json.JsonTree;
import dev.sluice.internal.json.JsonTree.Node;
import dev.sluice.internal.json.JsonTree.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST limits/acquire}: {@code {"maxWaitMs": 5000, "requests": [{"id": "a", "key": "k", "cost":
 * 2}, ...]}}, read strictly (unknown or repeated members, wrong types and more than {@value #MAX_REQUESTS} requests
 * are 400s naming the member). Values stay text here and are checked as the single-request parameters are.
 */
record BatchRequest(@Nullable String maxWaitMs, List<Item> requests) {

    static final int MAX_REQUESTS = 100;

    /** One request of the batch; {@code key} and {@code cost} null when absent. */
    record Item(String id, @Nullable String key, @Nullable String cost) {
    }

    static BatchRequest parse(@Nullable String body) {
        if (body == null || body.isBlank()) {
            throw Problems.invalid("body", "expected a JSON object such as {\"requests\": [{\"id\": \"partner-api\"}]},"
                    + " got nothing");
        }
        Node root;
        try {
            root = JsonTree.parse("body", body);
        } catch (JsonException e) {
            throw Problems.invalid("body", e.problem() + " at line " + e.line() + ", column " + e.column());
        }
        expect(root.type == Type.OBJECT, "body", "a JSON object");
        @Nullable String maxWait = null;
        @Nullable List<Item> items = null;
        for (Map.Entry<String, Node> member : root.fields().entrySet()) {
            Node value = member.getValue();
            switch (member.getKey()) {
                case "maxWaitMs" -> maxWait = integer(value);
                case "requests" -> items = items(value);
                default -> throw Problems.invalid(name(value), "unknown member; expected maxWaitMs or requests");
            }
        }
        if (items == null) {
            throw Problems.invalid("requests", "expected an array of requests");
        }
        return new BatchRequest(maxWait, items);
    }

    private static List<Item> items(Node requests) {
        expect(requests.type == Type.ARRAY, "requests", "an array of requests");
        expect(!requests.elements().isEmpty(), "requests", "at least one request");
        expect(requests.elements().size() <= MAX_REQUESTS, "requests", "at most " + MAX_REQUESTS + " requests");
        List<Item> items = new ArrayList<>();
        for (Node request : requests.elements()) {
            expect(request.type == Type.OBJECT, name(request), "an object such as {\"id\": \"partner-api\"}");
            @Nullable String id = null;
            @Nullable String key = null;
            @Nullable String cost = null;
            for (Map.Entry<String, Node> member : request.fields().entrySet()) {
                Node value = member.getValue();
                switch (member.getKey()) {
                    case "id" -> id = text(value);
                    case "key" -> key = text(value);
                    case "cost" -> cost = integer(value);
                    default -> throw Problems.invalid(name(value), "unknown member; expected id, key or cost");
                }
            }
            if (id == null) {
                throw Problems.invalid(name(request) + ".id", "expected the id of a limit");
            }
            items.add(new Item(id, key, cost));
        }
        return items;
    }

    private static String text(Node value) {
        expect(value.type == Type.STRING, name(value), "a string");
        return (String) value.content();
    }

    /** An integer's digits, as the caller wrote them. */
    private static String integer(Node value) {
        expect(value.type == Type.INTEGER, name(value), "an integer");
        return value.content().toString();
    }

    /** The member a value is at, as the service names it: {@code requests[0].cost}. */
    private static String name(Node value) {
        return value.path.substring("$.".length());
    }

    private static void expect(boolean condition, String member, String expectation) {
        if (!condition) {
            throw Problems.invalid(member, "expected " + expectation);
        }
    }
}
