package dev.sluice.service;

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
 * client (java.net.http) and the service's Java client (JAX-RS, Jersey's).
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

    /** A request of any method, with {@code body} (none when empty). */
    HttpResponse<String> request(String method, String path, String body, String... headers) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve(path)).method(method, body.isEmpty()
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)), headers);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String... headers) throws Exception {
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
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
