package dev.sluice.benchmarks;

import dev.sluice.servlet.FilterSettings;
import dev.sluice.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The servlet filter's cost over HTTP: Jetty 12 serving a two-byte answer at {@code /api/*}, with no filter
 * ({@code none}), or behind Sluice with one per-client-IP token bucket (never exhausted) counted in the local store
 * ({@code local}) or in an embedded Hazelcast member ({@code hazelcast}). Load it with wrk from another process.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.HttpOverheadServer
 * none|local|hazelcast PORT}; stops when killed.
 */
public final class HttpOverheadServer {

    private static final String RULES = """
            {"rules": [{"id": "per-ip", "match": {"paths": ["/api/**"]}, "key": {"type": "ip"},
                        "limits": [{"permits": 1000000000, "period": "1s"}]}]}
            """;

    private HttpOverheadServer() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0].toLowerCase(Locale.ROOT);
        int port = Integer.parseInt(args[1]);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.addServlet(new ServletHolder(new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                response.setContentType("text/plain");
                response.getOutputStream().write('o');
                response.getOutputStream().write('k');
            }
        }), "/api/*");
        if (!mode.equals("none")) {
            Path rules = Files.writeString(Files.createTempFile("sluice-http-bench", ".json"), RULES);
            FilterSettings.Builder settings = FilterSettings.builder().rules("file:" + rules);
            if (mode.equals("hazelcast")) {
                int memberPort = port + 1000;
                settings.storeProvider("hazelcast", java.util.Map.of(
                        "hazelcast-port", String.valueOf(memberPort),
                        "hazelcast-members", "127.0.0.1:" + memberPort,
                        "hazelcast-cluster-name", "sluice-http-bench-" + port)::get);
            }
            context.addFilter(new FilterHolder(new RateLimitFilter(settings.build())), "/*",
                    EnumSet.of(DispatcherType.REQUEST));
        }
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        server.setHandler(context);
        server.start();
        System.out.println("serving http://127.0.0.1:" + port + "/api/hello (" + mode + ")");
        server.join();
    }
}
