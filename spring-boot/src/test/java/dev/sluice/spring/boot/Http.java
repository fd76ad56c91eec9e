package dev.sluice.spring.boot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * Real HTTP requests to a test application on 127.0.0.1, each named as one client by {@code X-Forwarded-For}; redirects
 * are answers, not followed.
 */
final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final int port;

    Http(int port) {
        this.port = port;
    }

    /** {@code GET path} as the client at {@code clientAddress}. */
    HttpResponse<String> get(String path, String clientAddress) {
        return send(request(path, clientAddress).build());
    }

    /** {@code GET path} as the client at {@code clientAddress}, authenticated as {@code user}. */
    HttpResponse<String> getAs(String path, String clientAddress, String user, String password) {
        String basic = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return send(request(path, clientAddress).header("Authorization", "Basic " + basic).build());
    }

    /** {@code POST path} of an HTML form's URL-encoded {@code fields} ({@code a=1&b=2}) as {@code clientAddress}. */
    HttpResponse<String> postForm(String path, String clientAddress, String fields) {
        return send(request(path, clientAddress).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(fields)).build());
    }

    private HttpRequest.Builder request(String path, String clientAddress) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30))
                .header("X-Forwarded-For", clientAddress);
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
