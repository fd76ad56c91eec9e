package dev.sluice.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.http.StrictJson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Real HTTP requests to one running demo instance. Thread-safe. */
final class DemoHttp {

    /** Reads answers as strict parsers do: a repeated member fails the test that reads it. */
    private static final ObjectMapper JSON = new ObjectMapper(StrictJson.factory());

    /** The header a client of the limiter service sends with a POST: without it, one is refused as cross-site. */
    static final String[] SERVICE_CLIENT = {"Sluice-Client", "demo-tests"};

    private final URI base;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    DemoHttp(URI base) {
        this.base = base;
    }

    /** Sends {@code method path} with the given header name, value pairs. */
    HttpResponse<String> send(String method, String path, String... headers) throws IOException, InterruptedException {
        return client.send(request(method, path, headers), HttpResponse.BodyHandlers.ofString());
    }

    /** Sends {@code method path} with {@code json} as its body and the given header name, value pairs. */
    HttpResponse<String> sendJson(String method, String path, String json, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.ofString(json)).header("Content-Type", "application/json");
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Like {@link #send}, without waiting for the answer: requests sent this way are in flight together. */
    CompletableFuture<HttpResponse<String>> sendAsync(String method, String path, String... headers) {
        return client.sendAsync(request(method, path, headers), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String method, String path, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            request.headers(headers);
        }
        return request.build();
    }

    HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        return send("GET", path, headers);
    }

    HttpResponse<String> post(String path, String... headers) throws IOException, InterruptedException {
        return send("POST", path, headers);
    }

    static JsonNode json(HttpResponse<String> response) throws IOException {
        return JSON.readTree(response.body());
    }

    /** The stats of one rule from {@code GET /api/stats}, or a missing node when it has seen nothing yet. */
    JsonNode ruleStats(String ruleId) throws IOException, InterruptedException {
        for (JsonNode rule : json(get("/api/stats")).path("rules")) {
            if (rule.path("id").asText().equals(ruleId)) {
                return rule;
            }
        }
        return JSON.missingNode();
    }

    /**
     * The stats of one rule once {@code settled} holds for them, polled for at most 10 s: the stats filter records a
     * request after the rest of the chain returned, which may be after the client has its response.
     */
    JsonNode ruleStatsOnce(String ruleId, Predicate<JsonNode> settled) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        JsonNode stats = ruleStats(ruleId);
        while (!settled.test(stats) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            stats = ruleStats(ruleId);
        }
        return stats;
    }

    /** One outcome's total ({@code allowed}, {@code rejected}, ...) in a rule's stats. */
    static long total(JsonNode rule, String outcome) {
        return rule.path("totals").path(outcome).asLong();
    }
}
