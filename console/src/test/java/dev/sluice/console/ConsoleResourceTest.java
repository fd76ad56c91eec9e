package dev.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.engine.KeyMask;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.http.StrictJson;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.LocalCounterStore;
import java.io.ByteArrayInputStream;
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

    /** Sends the request; a JSON answer is read whole by a parser that refuses repeated members first. */
    private HttpResponse<String> send(HttpRequest.Builder request, String... headers) throws Exception {
        if (headers.length > 0) {
            request.headers(headers);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.headers().firstValue("Content-Type").orElse("").contains("json")) {
            StrictJson.checked(response.body());
        }
        return response;
    }

    private HttpResponse<String> postOverride(String body, String... headers) throws Exception {
        return send(HttpRequest.newBuilder(base.resolve("console/overrides"))
                .POST(HttpRequest.BodyPublishers.ofString(body)), headers);
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
        JsonNode document = new ObjectMapper(StrictJson.factory()).readTree(answer.body());
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

    private static final String OVERRIDE = """
            {"rule": "hello", "key": "198.51.100.7", "kind": "blocked", "lastingSeconds": 60, "reason": "abuse",
             "setBy": "alice"}""";

    /** Issue 38.9: the body is read after the access check, and no further than the bound. */
    @Test
    void setOverride_bodyPastTheBound_is401WithoutTheTokenThen413_andSetsNothing() throws Exception {
        start(ConsoleFeature.builder(console).operationsToken(TOKEN).build());
        String large = OVERRIDE + " ".repeat(ConsoleResource.MAX_BODY_BYTES);

        HttpResponse<String> anonymous = postOverride(large, "Content-Type", "application/json");
        HttpResponse<String> tooLarge = postOverride(large, "Content-Type", "application/json",
                "Authorization", "Bearer " + TOKEN);
        HttpResponse<String> chunked = send(HttpRequest.newBuilder(base.resolve("console/overrides"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(
                        large.getBytes(StandardCharsets.UTF_8)))), "Content-Type", "application/json",
                "Authorization", "Bearer " + TOKEN);

        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(tooLarge.statusCode()).isEqualTo(413);
        assertThat(tooLarge.body()).contains("at most 16384 bytes");
        assertThat(chunked.statusCode()).as("without a length: read up to the bound").isEqualTo(413);
        assertThat(console.cluster().overrides()).isEmpty();
        assertThat(postOverride(OVERRIDE, "Content-Type", "application/json", "Authorization", "Bearer " + TOKEN)
                .statusCode()).isEqualTo(201);
    }

    /**
     * Issue 38.15: a page of another site can have a browser POST without asking only with no content type, a form's
     * or plain text, and with the browser's login (a role): the console takes JSON alone, 415 otherwise.
     */
    @Test
    void setOverride_withoutAJsonContentType_is415AndSetsNothing() throws Exception {
        start(ConsoleFeature.builder(console).operationsToken(TOKEN).build());

        for (String[] type : new String[][] {{}, {"Content-Type", "text/plain"},
            {"Content-Type", "application/x-www-form-urlencoded"}, {"Content-Type", "multipart/form-data; boundary=x"},
            {"Content-Type", "application/jsonp"}}) {
            String[] headers = Arrays.copyOf(type, type.length + 2);
            headers[type.length] = "Authorization";
            headers[type.length + 1] = "Bearer " + TOKEN;
            HttpResponse<String> refused = postOverride(OVERRIDE, headers);

            assertThat(refused.statusCode()).as(String.join(": ", type)).isEqualTo(415);
            assertThat(refused.body()).contains("Content-Type: application/json");
        }
        assertThat(console.cluster().overrides()).isEmpty();
        assertThat(postOverride(OVERRIDE, "Content-Type", "application/json; charset=utf-8",
                "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(201);
    }

    /** Issue 38.15: {@code by} goes into the store's log line, so it is one line, as an override's setter is. */
    @Test
    void removeOverride_byWithALineBreakOrTooLong_is400AndRemovesNothing() throws Exception {
        start(ConsoleFeature.builder(console).operationsToken(TOKEN).build());
        postOverride(OVERRIDE, "Content-Type", "application/json", "Authorization", "Bearer " + TOKEN);
        String mask = KeyMask.of("198.51.100.7").replace("#", "%23");

        for (String by : List.of("bob%0D%0AINFO:+override+removed+by+admin", "bob%0Aeve", "bob%00",
                "b".repeat(LimitOverride.MAX_TEXT_LENGTH + 1))) {
            HttpResponse<String> refused = send(HttpRequest.newBuilder(base.resolve("console/overrides?rule=hello&key="
                    + mask + "&by=" + by)).DELETE(), "Authorization", "Bearer " + TOKEN);

            assertThat(refused.statusCode()).as(by).isEqualTo(400);
            assertThat(refused.body()).contains("'by' must be one line");
        }
        assertThat(console.cluster().overrides()).hasSize(1);
        assertThat(send(HttpRequest.newBuilder(base.resolve("console/overrides?rule=hello&key=" + mask
                + "&by=bob")).DELETE(), "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
    }
}
