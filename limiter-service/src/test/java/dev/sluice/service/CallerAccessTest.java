package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.ManualTimeSource;
import dev.sluice.service.client.LimiterClient;
import dev.sluice.service.client.LimiterServiceException;
import dev.sluice.store.Command;
import dev.sluice.store.LocalCounterStore;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Who may call the service (issue 38.13), through real HTTP on Jetty 12 and Jersey: the rate endpoints ask for the
 * client credential when one is configured (a bearer token or a role; the operations credential opens them too), the
 * descriptions never; and every POST that a page of another site could have a browser send unasked (no
 * {@code Sluice-Client} header, and no content type or a form's or plain text's) is refused with 403 and counts
 * nothing, operations included. Each refusal is checked against the store: nothing counted, held or reset.
 */
class CallerAccessTest {

    static final String LIMITS = """
            {"limits": {
              "partner-api": {"permits": 10, "period": "1m"},
              "github": {"permits": 3, "period": "10s", "perKey": true},
              "exports": {"concurrency": 2, "maxHold": "1m"},
              "llm": {"algorithm": "sliding_window_log",
                      "limits": [{"permits": 3, "period": "1m"}, {"permits": 100, "period": "1m", "unit": "tokens"}]}
            }}""";
    private static final String CLIENT_TOKEN = "client-token-of-the-tests-0123";
    private static final String OPERATIONS_TOKEN = "operations-token-of-the-tests-0123";
    private static final String BATCH = "{\"requests\": [{\"id\": \"partner-api\"}]}";

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);
    private TestServer server;

    private void start(LimiterService.Builder builder, Object... more) throws Exception {
        ResourceConfig app = new ResourceConfig().register(builder.limits(LimitsFile.parse("limits.json", LIMITS))
                .store(store).timeSource(time).build());
        for (Object component : more) {
            app.register(component);
        }
        server = TestServer.start(app);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** The permits partner-api has left, read from the store: what a refused request must not have taken. */
    private long partnerApiRemaining() {
        LimitsFile.Entry entry = LimitsFile.parse("limits.json", LIMITS).find("partner-api").orElseThrow();
        return store.execute(entry.counterKey(""), Command.peek(entry.policy().orElseThrow(), 0)).remaining();
    }

    private HttpResponse<String> call(String method, String path, String body, String... headers) throws Exception {
        return server.request(method, path, body, withJsonType(body, headers));
    }

    private static String[] withJsonType(String body, String... headers) {
        if (body.isEmpty()) {
            return headers;
        }
        String[] all = Arrays.copyOf(headers, headers.length + 2);
        all[headers.length] = "Content-Type";
        all[headers.length + 1] = "application/json";
        return all;
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "GET | limits/partner-api/delay | | /limits/{id}/delay",
        "POST | limits/partner-api/increment | | /limits/{id}/increment",
        "POST | limits/partner-api/acquire | | /limits/{id}/acquire",
        "POST | limits/acquire | " + BATCH + " | /limits/acquire",
        "POST | limits/exports/permits | | /limits/{id}/permits",
        "DELETE | limits/exports/permits | | /limits/{id}/permits",
        "POST | limits/llm/reservations?estimate=5 | | /limits/{id}/reservations",
        "PUT | limits/llm/reservations?cost=1 | | /limits/{id}/reservations"})
    void rateEndpoint_clientTokenConfigured_is401WithoutIt_andTakesItOrTheOperationsToken(String method, String path,
                                                                                          String body,
                                                                                          String documented)
            throws Exception {
        start(LimiterService.builder().clientToken(CLIENT_TOKEN).operationsToken(OPERATIONS_TOKEN));
        String content = body == null ? "" : body;

        HttpResponse<String> none = call(method, path, content);
        HttpResponse<String> wrong = call(method, path, content, "Authorization", "Bearer " + CLIENT_TOKEN + "x");

        assertThat(none.statusCode()).as(none.body()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"sluice-limiter\"");
        assertThat(OpenApiDocument.conforming(none.body(), "Problem").get("detail").asText())
                .isEqualTo("The limiter's rate endpoints need the bearer token that the service was configured with.");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.body()).doesNotContain(CLIENT_TOKEN);
        assertThat(partnerApiRemaining()).as("nothing counted").isEqualTo(10);
        assertThat(store.permitsHeld()).isZero();
        // With a credential the endpoint answers as it does to anyone (the DELETE and PUT without a token: 400).
        assertThat(call(method, path, content, "Authorization", "Bearer " + CLIENT_TOKEN).statusCode())
                .isIn(200, 400);
        assertThat(call(method, path, content, "Authorization", "Bearer " + OPERATIONS_TOKEN).statusCode())
                .isIn(200, 400);
        assertThat(OpenApiDocument.operation(documented, method).path("responses").path("401").path("description")
                .asText()).as("documented").contains("client credential");
    }

    @Test
    void descriptions_clientTokenConfigured_needNoCredential() throws Exception {
        start(LimiterService.builder().clientToken(CLIENT_TOKEN));

        assertThat(server.get("limits").statusCode()).isEqualTo(200);
        assertThat(server.get("limits/openapi.json").statusCode()).isEqualTo(200);
    }

    @Test
    void rateEndpoint_clientRole_needsAnAuthenticatedUserInIt() throws Exception {
        start(LimiterService.builder().clientRole("limiter-client"), new LimiterServiceTest.TestLogin());

        HttpResponse<String> anonymous = server.post("limits/partner-api/acquire", "");
        HttpResponse<String> guest = server.post("limits/partner-api/acquire", "", "X-Test-User", "guest");
        HttpResponse<String> client = server.post("limits/partner-api/acquire", "", "X-Test-User", "limiter-client");

        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"sluice-limiter\"");
        assertThat(guest.statusCode()).isEqualTo(403);
        assertThat(OpenApiDocument.conforming(guest.body(), "Problem").get("type").asText())
                .isEqualTo("https://sluice.dev/problems/forbidden");
        assertThat(client.statusCode()).as(client.body()).isEqualTo(200);
        assertThat(partnerApiRemaining()).as("one acquire counted").isEqualTo(9);
    }

    @Test
    void operations_clientTokenConfigured_stillAnswerAsTheirOwnCredentialSays() throws Exception {
        start(LimiterService.builder().clientToken(CLIENT_TOKEN));

        assertThat(server.get("limits/partner-api/state", "Authorization", "Bearer " + CLIENT_TOKEN).statusCode())
                .as("operations off: not there, whatever the client credential").isEqualTo(404);
    }

    @Test
    void javaClient_withTheClientToken_acquiresReservesAndReleases_andWithoutItIsRefused() throws Exception {
        start(LimiterService.builder().clientToken(CLIENT_TOKEN));
        LimiterClient client = server.client().withBearerToken(CLIENT_TOKEN);

        assertThat(client.acquire("partner-api", null, 1, Duration.ZERO).granted()).isTrue();
        assertThat(client.delay("github", "acct-1", 1).remaining()).hasValue(3);
        LimiterClient.Reservation tokens = client.reserve("llm", null, 10);
        assertThat(client.settle("llm", null, tokens.token(), 4).remaining()).hasValue(96);
        long held = store.permitsHeld();
        try (LimiterClient.Permit permit = client.acquirePermit("exports", null)) {
            assertThat(permit.granted()).isTrue();
            assertThat(store.permitsHeld()).isEqualTo(held + 1);
        }
        assertThat(store.permitsHeld()).as("released on close").isEqualTo(held);
        assertThatThrownBy(() -> server.client().acquire("partner-api", null, 1, Duration.ZERO))
                .isInstanceOfSatisfying(LimiterServiceException.class, e -> assertThat(e.status()).isEqualTo(401));
    }

    @Test
    void startLine_clientCredential_saysForWhomNeverTheToken() throws Exception {
        start(LimiterService.builder());
        LimiterService service = LimiterService.builder().limits(LimitsFile.parse("limits.json", LIMITS))
                .store(store).clientToken(CLIENT_TOKEN).clientRole("limiter-client").build();

        assertThat(service.startLine())
                .contains(", callers on (bearer token or role 'limiter-client'), operations off,")
                .doesNotContain(CLIENT_TOKEN);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"limits/partner-api/increment", "limits/partner-api/acquire", "limits/github/a/acquire",
        "limits/acquire", "limits/exports/permits", "limits/llm/reservations?estimate=5"})
    void post_fromAPageOfAnotherSite_is403AndCountsNothing(String path) throws Exception {
        start(LimiterService.builder());

        // What a form, a beacon or a no-cors fetch sends: no Sluice-Client, and no or a simple content type.
        for (String[] headers : new String[][] {{}, {"Content-Type", "text/plain"},
            {"Content-Type", "application/x-www-form-urlencoded"},
            {"Content-Type", "multipart/form-data; boundary=x"}, {"Content-Type", "TEXT/PLAIN;charset=UTF-8"}}) {
            HttpResponse<String> refused = server.requestFromAPage("POST", path, BATCH, headers);

            assertThat(refused.statusCode()).as(String.join(": ", headers)).isEqualTo(403);
            JsonNode problem = OpenApiDocument.conforming(refused.body(), "Problem");
            assertThat(problem.get("type").asText()).isEqualTo("https://sluice.dev/problems/cross-site-request");
            assertThat(problem.get("detail").asText()).contains("Sluice-Client", "Nothing was counted.");
        }
        assertThat(partnerApiRemaining()).isEqualTo(10);
        assertThat(store.permitsHeld()).isZero();
        assertThat(server.requestFromAPage("POST", "limits/llm/reservations?estimate=100", "").statusCode())
                .isEqualTo(403);
        assertThat(server.post("limits/llm/reservations?estimate=100", "").statusCode())
                .as("no tokens were reserved by the refusals").isEqualTo(200);
    }

    /** A page cannot have a browser send a JSON body without asking: such a POST needs no Sluice-Client. */
    @Test
    void post_jsonBodyWithoutTheClientHeader_isTaken() throws Exception {
        start(LimiterService.builder());

        HttpResponse<String> batch = server.requestFromAPage("POST", "limits/acquire", BATCH, "Content-Type",
                "application/json");
        HttpResponse<String> acquire = server.requestFromAPage("POST", "limits/partner-api/acquire", "",
                "Content-Type", "application/json; charset=utf-8");

        assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
        assertThat(acquire.statusCode()).as(acquire.body()).isEqualTo(200);
        assertThat(partnerApiRemaining()).isEqualTo(8);
    }

    /**
     * Operations under a role are what a browser's login (a cookie, a Basic login it remembers) could send from a page
     * of another site; here the test login's header stands for that login.
     */
    @Test
    void reset_underARoleFromAPageOfAnotherSite_is403AndResetsNothing() throws Exception {
        start(LimiterService.builder().operationsRole("limiter-admin"), new LimiterServiceTest.TestLogin());
        server.post("limits/partner-api/acquire", "");

        HttpResponse<String> refused = server.requestFromAPage("POST", "limits/partner-api/reset", "",
                "X-Test-User", "limiter-admin", "Content-Type", "text/plain");
        HttpResponse<String> reset = server.post("limits/partner-api/reset", "", "X-Test-User", "limiter-admin");

        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("cross-site-request");
        assertThat(reset.statusCode()).isEqualTo(204);
        assertThat(partnerApiRemaining()).isEqualTo(10);
    }

    /** PUT and DELETE are never sent cross-site unasked (a preflight comes first, and the service answers none). */
    @Test
    void putAndDelete_withoutTheClientHeader_areTaken() throws Exception {
        start(LimiterService.builder());

        assertThat(server.requestFromAPage("DELETE", "limits/exports/permits", "").statusCode()).isEqualTo(400);
        assertThat(server.requestFromAPage("PUT", "limits/llm/reservations?cost=1", "").statusCode()).isEqualTo(400);
    }
}
