package dev.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.engine.KeyMask;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.store.LocalCounterStore;
import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
    private final Console console = Console.builder(store, new ConsoleRecorder()).instance("only")
            .rules(ReloadingRuleSet.builder().content("rules.json",
                    ConsoleRecorderTest.RULES.getBytes(StandardCharsets.UTF_8)).build(), "rules.json").build();
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
        return send(HttpRequest.newBuilder(base.resolve(path)).GET(), headers);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String... headers) throws Exception {
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
        assertThat(get("console/cards.js").statusCode()).as("code other pages share").isEqualTo(200);
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
    void overrides_setListedAndRemovedByMask_changeWhatTheConsoleShows() throws Exception {
        start(ConsoleFeature.builder(console).operationsToken(TOKEN).build());
        String body = """
                {"rule": "hello", "key": "198.51.100.7", "kind": "limits",
                 "limits": [{"permits": 50, "periodSeconds": 60}], "lastingSeconds": 7200,
                 "reason": "launch day", "setBy": "alice"}""";
        assertThat(send(HttpRequest.newBuilder(base.resolve("console/overrides"))
                .POST(HttpRequest.BodyPublishers.ofString(body)), "Content-Type", "application/json").statusCode())
                .isEqualTo(401);

        HttpResponse<String> set = send(HttpRequest.newBuilder(base.resolve("console/overrides"))
                .POST(HttpRequest.BodyPublishers.ofString(body)), "Content-Type", "application/json",
                "Authorization", "Bearer " + TOKEN);

        assertThat(set.statusCode()).as(set.body()).isEqualTo(201);
        String mask = KeyMask.of("198.51.100.7");
        assertThat(set.body()).contains("\"key\":\"" + mask + "\"", "\"limits\":[\"hello:50/1m\"]",
                "\"setBy\":\"alice\"").doesNotContain("198.51.100.7");
        assertThat(console.cluster().overrides()).extracting(OverrideView::reason).containsExactly("launch day");
        HttpResponse<String> removed = send(HttpRequest.newBuilder(base.resolve("console/overrides?rule=hello&key="
                + mask.replace("#", "%23") + "&by=bob")).DELETE(), "Authorization", "Bearer " + TOKEN);
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        assertThat(console.cluster().overrides()).isEmpty();
        assertThat(send(HttpRequest.newBuilder(base.resolve("console/overrides?rule=hello&key=" + mask
                .replace("#", "%23"))).DELETE(), "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(404);
    }

    /** The document names every operation, and each schema has exactly the fields of the type Jackson writes. */
    @Test
    void openApi_documentsTheOperationsAndTheFieldsOfEachBody() throws Exception {
        start(ConsoleFeature.builder(console).operationsToken(TOKEN).build());

        HttpResponse<String> answer = get("console/openapi.json");
        assertThat(answer.statusCode()).isEqualTo(200);
        JsonNode document = new ObjectMapper().readTree(answer.body());
        assertThat(document.path("paths").path("/console/cluster").has("get")).isTrue();
        assertThat(document.path("paths").path("/console/overrides").has("post")).isTrue();
        assertThat(document.path("paths").path("/console/overrides").has("delete")).isTrue();
        JsonNode schemas = document.path("components").path("schemas");
        Map<String, Class<? extends Record>> types = Map.of("OverrideRequest", OverrideRequest.class,
                "LimitText", OverrideRequest.LimitText.class, "Override", OverrideView.class,
                "ClusterView", ClusterView.class);
        types.forEach((schema, type) -> {
            List<String> documented = new ArrayList<>();
            schemas.path(schema).path("properties").fieldNames().forEachRemaining(documented::add);
            assertThat(documented).as(schema).containsExactlyInAnyOrderElementsOf(
                    Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList());
        });
    }

    @Test
    void setOverride_unknownRule_answers400NamingIt() throws Exception {
        start(ConsoleFeature.builder(console).operationsToken(TOKEN).build());

        HttpResponse<String> refused = send(HttpRequest.newBuilder(base.resolve("console/overrides"))
                .POST(HttpRequest.BodyPublishers.ofString("""
                        {"rule": "nope", "key": "k", "kind": "blocked", "lastingSeconds": 60, "reason": "r",
                         "setBy": "alice"}""")), "Content-Type", "application/json",
                "Authorization", "Bearer " + TOKEN);

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("nope");
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
