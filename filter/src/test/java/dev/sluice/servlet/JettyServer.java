package dev.sluice.servlet;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A real Jetty 12 on 127.0.0.1 and a free port, with the contexts a test sets up, and a real HTTP client. Public for
 * other modules' tests (through this module's test-jar).
 */
public final class JettyServer implements AutoCloseable {

    /** Jetty's own default limit on the size of a request's headers, in bytes. */
    public static final int DEFAULT_REQUEST_HEADER_SIZE = new HttpConfiguration().getRequestHeaderSize();

    private final Server server;
    private final URI base;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private JettyServer(Server server, URI base) {
        this.server = server;
        this.base = base;
    }

    /** Starts Jetty with {@code maxThreads} threads serving the given handlers. */
    public static JettyServer start(int maxThreads, ContextHandler... handlers) throws Exception {
        return start(maxThreads, DEFAULT_REQUEST_HEADER_SIZE, handlers);
    }

    /**
     * Starts Jetty with {@code maxThreads} threads serving the given handlers, accepting request headers of up to
     * {@code requestHeaderSize} bytes in all (larger ones are answered 431 before any filter runs).
     */
    public static JettyServer start(int maxThreads, int requestHeaderSize, ContextHandler... handlers)
            throws Exception {
        return start(maxThreads, requestHeaderSize, List.of(), handlers);
    }

    /**
     * Starts Jetty as {@link #start(int, ContextHandler...)} does, its connector also speaking the protocol that
     * {@code alsoSpoken} makes from the connector's HTTP configuration: HTTP/2 over cleartext, say, which Jetty then
     * accepts from a client that starts with HTTP/2's preface (see {@link RawHttp2}).
     */
    public static JettyServer start(int maxThreads, Function<HttpConfiguration, ConnectionFactory> alsoSpoken,
                                    ContextHandler... handlers) throws Exception {
        return start(maxThreads, DEFAULT_REQUEST_HEADER_SIZE, List.of(alsoSpoken), handlers);
    }

    private static JettyServer start(int maxThreads, int requestHeaderSize,
                                     List<Function<HttpConfiguration, ConnectionFactory>> alsoSpoken,
                                     ContextHandler... handlers) throws Exception {
        QueuedThreadPool threads = new QueuedThreadPool(maxThreads, Math.min(8, maxThreads));
        threads.setName("jetty-test");
        Server server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(requestHeaderSize);
        List<ConnectionFactory> factories = new ArrayList<>(List.of(new HttpConnectionFactory(http)));
        alsoSpoken.forEach(factory -> factories.add(factory.apply(http)));
        ServerConnector connector = new ServerConnector(server, 1, 1, factories.toArray(ConnectionFactory[]::new));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new ContextHandlerCollection(handlers));
        server.start();
        return new JettyServer(server, URI.create("http://127.0.0.1:" + connector.getLocalPort()));
    }

    /** Starts Jetty with one servlet context at {@code /}, set up by {@code setUp}. */
    public static JettyServer start(Consumer<ServletContextHandler> setUp) throws Exception {
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.setContextPath("/");
        setUp.accept(context);
        return start(50, context);
    }

    public URI uri(String pathAndQuery) {
        return base.resolve(pathAndQuery);
    }

    public HttpResponse<String> get(String pathAndQuery, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(pathAndQuery)).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Sends {@code GET pathAndQuery} with {@code headers} (names and values in turn) on a connection of its own and
     * goes away once the response has begun: a client gone in the middle of a response.
     */
    public void getAndGoAway(String pathAndQuery, String... headers) throws IOException {
        StringBuilder request = new StringBuilder("GET ").append(pathAndQuery).append(" HTTP/1.1\r\nHost: ")
                .append(base.getHost()).append("\r\n");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(request.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            if (socket.getInputStream().read() < 0) {
                throw new IOException("the server closed the connection before its response began");
            }
        }
    }

    public HttpClient client() {
        return client;
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
