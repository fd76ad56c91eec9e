package dev.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.store.LocalCounterStore;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The console's endpoints on a real Jetty 12 and Jersey, under the context path {@code /app} and {@code /api/*}. */
class ConsoleResourceTest {

    private static final String TOKEN = "a-console-token-of-32-characters";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final LocalCounterStore store = new LocalCounterStore();
    private final Console console = Console.builder(store, new ConsoleRecorder()).instance("only").build();
    private Server server;
    private URI base;

    @AfterEach
    void stop() throws Exception {
        server.stop();
        console.close();
        store.close();
    }

    private void start(ConsoleFeature feature) throws Exception {
        server = new Server();
        ServerConnector connector = new ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.setContextPath("/app");
        ServletHolder jersey = new ServletHolder(new ServletContainer(new ResourceConfig().register(feature)));
        context.addServlet(jersey, "/api/*");
        server.setHandler(context);
        server.start();
        base = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/app/api/");
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).GET();
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void console_neitherTokenNorRole_answers404Everywhere() throws Exception {
        start(ConsoleFeature.builder(console).build());

        assertThat(get("console/").statusCode()).isEqualTo(404);
        assertThat(get("console/console.js").statusCode()).isEqualTo(404);
        assertThat(get("console/cluster", "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(404);
    }

    @Test
    void page_withoutItsSlash_isRedirectedUnderTheContextPath() throws Exception {
        start(ConsoleFeature.builder(console).operationsToken(TOKEN).build());

        HttpResponse<String> redirect = get("console");
        assertThat(redirect.statusCode()).isEqualTo(303);
        assertThat(redirect.headers().firstValue("Location").orElseThrow()).endsWith("/app/api/console/");
        HttpResponse<String> page = get("console/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>Sluice console</title>", "href=\"console.css\"",
                "src=\"console.js\"");
        assertThat(get("console/console.js").headers().firstValue("Content-Type").orElseThrow())
                .startsWith("text/javascript");
        assertThat(get("console/console.css").statusCode()).isEqualTo(200);
    }

    @Test
    void cluster_withoutOrWithTheToken_answers401ThenTheView() throws Exception {
        start(ConsoleFeature.builder(console).operationsToken(TOKEN).build());

        HttpResponse<String> refused = get("console/cluster");
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.headers().firstValue("WWW-Authenticate").orElseThrow()).startsWith("Bearer");
        assertThat(refused.headers().firstValue("Content-Type").orElseThrow()).isEqualTo("application/problem+json");
        HttpResponse<String> view = get("console/cluster", "Authorization", "Bearer " + TOKEN);
        assertThat(view.statusCode()).isEqualTo(200);
        assertThat(view.body()).startsWith("{\"format\":1,").contains("\"drift\":false");
    }
}
