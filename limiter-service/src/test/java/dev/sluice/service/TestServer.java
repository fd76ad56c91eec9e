package dev.sluice.service;

import dev.sluice.http.StrictJson;
import dev.sluice.service.client.LimiterClient;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;

/**
 * A real Jetty 12 on 127.0.0.1 and a free port serving a Jersey application at {@code /api/*}, with a real HTTP
 * client (java.net.http) and the service's Java client (JAX-RS, Jersey's). Requests carry the header
 * {@code Sluice-Client}, as the service's clients send it, unless sent {@linkplain #requestFromAPage from a page};
 * every JSON answer is read by a parser that refuses repeated members ({@link StrictJson}) before a test sees it.
 */
final class TestServer implements AutoCloseable {

    private final Server server;
    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final Client jaxrs = ClientBuilder.newClient();

    private TestServer(Server server, URI base) {
        this.server = server;
        this.base = base;
    }

    static TestServer start(ResourceConfig app) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.setContextPath("/");
        ServletHolder jersey = new ServletHolder(new ServletContainer(app));
        jersey.setInitOrder(1);
        context.addServlet(jersey, "/api/*");
        server.setHandler(context);
        server.start();
        return new TestServer(server, URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/api/"));
    }

    /** The application's base URI, such as {@code http://127.0.0.1:40123/api/}. */
    URI base() {
        return base;
    }

    LimiterClient client() {
        return LimiterClient.of(jaxrs.target(base));
    }

    HttpResponse<String> get(String path, String... headers) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET(), headers);
    }

    HttpResponse<String> post(String path, String body, String... headers) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).POST(HttpRequest.BodyPublishers.ofString(body)),
                headers);
    }

    /** A POST of any body, such as one without a length (sent in chunks). */
    HttpResponse<String> post(String path, HttpRequest.BodyPublisher body, String... headers) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).POST(body), headers);
    }

    /** A request of any method, with {@code body} (none when empty). */
    HttpResponse<String> request(String method, String path, String body, String... headers) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).method(method, body.isEmpty()
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)), headers);
    }

    /**
     * A request without {@code Sluice-Client}, as a page of another site can have a browser send it unasked (with
     * the headers such a page may set, such as a form's {@code Content-Type}).
     */
    HttpResponse<String> requestFromAPage(String method, String path, String body, String... headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).method(method, body.isEmpty()
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return checked(http.send(withHeaders(request, headers).build(), HttpResponse.BodyHandlers.ofString()));
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String... headers) throws Exception {
        withHeaders(request, headers).header("Sluice-Client", "tests");
        return checked(http.send(request.build(), HttpResponse.BodyHandlers.ofString()));
    }

    private static HttpRequest.Builder withHeaders(HttpRequest.Builder request, String... headers) {
        if (headers.length > 0) {
            request.headers(headers);
        }
        return request.timeout(Duration.ofSeconds(30));
    }

    /** The answer, once its body (when JSON) has been read whole by a parser refusing repeated members. */
    private static HttpResponse<String> checked(HttpResponse<String> response) {
        if (response.headers().firstValue("Content-Type").orElse("").contains("json")) {
            StrictJson.checked(response.body());
        }
        return response;
    }

    @Override
    public void close() {
        jaxrs.close();
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("Jetty did not stop", e);
        }
    }
}
