package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.ManualTimeSource;
import dev.sluice.service.client.LimiterClient;
import dev.sluice.service.client.LimiterServiceException;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Reservations of a cost in tokens through the service (issue 34), over real HTTP on Jetty 12 and Jersey, on a local
 * store and a manual clock: reserve counts the call and its estimate all or nothing, settle charges an excess and gives
 * a difference back, once however often it is sent (idempotent), through any instance with the signing key; a forged
 * or foreign token is a 400 naming {@code reservation}; answers checked against the OpenAPI document; the Java client.
 */
class ReservationServiceTest {

    static final String LIMITS = """
            {"limits": {
              "llm": {"algorithm": "sliding_window_log", "perKey": true,
                      "limits": [{"permits": 3, "period": "1m"}, {"permits": 100, "period": "1m", "unit": "tokens"}]},
              "partner-api": {"permits": 10, "period": "1m"}
            }}""";
    private static final String SIGNING_KEY = "permit-signing-key-of-the-tests-0123456789";

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);
    private TestServer server;

    @BeforeEach
    void start() throws Exception {
        server = serving(SIGNING_KEY);
    }

    private TestServer serving(String signingKey) throws Exception {
        return serving(signingKey, store);
    }

    private TestServer serving(String signingKey, CounterStore counters) throws Exception {
        return TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LIMITS)).store(counters).timeSource(time)
                .permitSigningKey(signingKey).build()));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private JsonNode reserved(String key, long estimate) throws Exception {
        HttpResponse<String> response = server.post("limits/llm/" + key + "/reservations?estimate=" + estimate, "");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return OpenApiDocument.conforming(response.body(), "Reservation");
    }

    private JsonNode settled(String key, String token, long cost) throws Exception {
        HttpResponse<String> response = settle(server, "limits/llm/" + key + "/reservations?cost=" + cost, token);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return OpenApiDocument.conforming(response.body(), "Settled");
    }

    /** {@code PUT path} with {@code token} in the header {@code Sluice-Reservation}, as clients settle. */
    private static HttpResponse<String> settle(TestServer through, String path, String token) throws Exception {
        return through.request("PUT", path, "", "Sluice-Reservation", token);
    }

    @Test
    void reserveThenSettle_givesTheDifferenceBackOnceHoweverOftenItIsSent() throws Exception {
        JsonNode reservation = reserved("acct", 40);
        assertThat(reservation.get("remaining").asLong()).isEqualTo(60);
        assertThat(reservation.get("requestsRemaining").asLong()).isEqualTo(2);
        assertThat(reservation.get("unit").asText()).isEqualTo("tokens");
        String token = reservation.get("reservation").asText();

        JsonNode first = settled("acct", token, 10);
        JsonNode again = settled("acct", token, 10);
        JsonNode different = settled("acct", token, 99);

        assertThat(first.get("alreadySettled").asBoolean()).isFalse();
        assertThat(first.get("remaining").asLong()).isEqualTo(90);
        assertThat(first.get("debt").asLong()).isZero();
        assertThat(again.get("alreadySettled").asBoolean()).isTrue();
        assertThat(different.get("alreadySettled").asBoolean()).isTrue();
        assertThat(reserved("acct", 1).get("remaining").asLong()).as("settled once").isEqualTo(89);
    }

    @Test
    void settle_aboveTheEstimate_isADebtTheNextReservationWaitsFor() throws Exception {
        String token = reserved("acct", 10).get("reservation").asText();

        JsonNode debt = settled("acct", token, 130);

        assertThat(debt.get("debt").asLong()).isEqualTo(120);
        assertThat(debt.get("remaining").asLong()).isZero();
        HttpResponse<String> refused = server.post("limits/llm/acct/reservations?estimate=1", "");
        assertThat(refused.statusCode()).isEqualTo(429);
        // The log holds 130 tokens counted now: they leave the window in a minute.
        assertThat(refused.headers().firstValue("Retry-After")).contains("60");
        OpenApiDocument.conforming(refused.body(), "Refusal");
        time.advance(Duration.ofMinutes(1));
        reserved("acct", 1);
    }

    /**
     * A store that cannot give back (as the compare-and-set mode, or one of another library with permits) names no
     * reservation: a settle above the estimate still charges the excess, one below keeps the estimate.
     */
    @Test
    void settle_storeWithoutReservationIds_stillChargesTheExcess() throws Exception {
        CounterStore noIds = new CounterStore() {
            @Override
            @SuppressWarnings("unchecked") // an estimate answers a Counted
            public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
                if (command instanceof Command.Estimate estimate) {
                    return (CompletionStage<R>) store.executeAsync(key, Command.decide(estimate.policy(),
                            estimate.cost(), 0)).thenApply(decision -> decision.allowed()
                                    ? Counted.reservation(decision, () -> CompletableFuture.completedFuture(decision),
                                            actual -> store.executeAsync(key, actual > estimate.cost()
                                                    ? Command.record(estimate.policy(), actual - estimate.cost(), 0)
                                                    : Command.peek(estimate.policy(), 0)))
                                    : Counted.kept(decision));
                }
                return store.executeAsync(key, command);
            }

            @Override
            public void close() {
            }
        };
        server.close();
        server = serving(SIGNING_KEY, noIds);

        JsonNode below = settled("below", reserved("below", 40).get("reservation").asText(), 10);
        JsonNode above = settled("above", reserved("above", 10).get("reservation").asText(), 130);

        assertThat(below.get("remaining").asLong()).as("the estimate kept").isEqualTo(60);
        assertThat(above.get("debt").asLong()).isEqualTo(120);
        assertThat(above.get("remaining").asLong()).isZero();
        assertThat(server.post("limits/llm/above/reservations?estimate=1", "").statusCode()).isEqualTo(429);
    }

    @Test
    void reserve_requestLimitRefuses_countsNoTokensEither() throws Exception {
        for (int i = 0; i < 3; i++) {
            reserved("acct", 5);
        }

        HttpResponse<String> refused = server.post("limits/llm/acct/reservations?estimate=5", "");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(OpenApiDocument.conforming(refused.body(), "Refusal").get("detail").asText())
                .contains("has no room now for this reservation of 5 tokens");
        time.advance(Duration.ofMinutes(1));
        assertThat(reserved("acct", 100).get("remaining").asLong()).as("nothing counted in tokens").isZero();
    }

    @Test
    void reserve_tokenLimitRefuses_countsNoRequestEither() throws Exception {
        reserved("acct", 90);

        assertThat(server.post("limits/llm/acct/reservations?estimate=20", "").statusCode()).isEqualTo(429);

        assertThat(reserved("acct", 10).get("requestsRemaining").asLong()).as("the refused call given back")
                .isEqualTo(1);
    }

    @Test
    void settle_throughAnotherInstanceWithTheSameKey_settles_andOneWithAnotherKeyRefuses() throws Exception {
        String token = reserved("acct", 40).get("reservation").asText();
        try (TestServer same = serving(SIGNING_KEY);
             TestServer other = serving("another-signing-key-of-the-tests-9876543210")) {
            HttpResponse<String> foreign = settle(other, "limits/llm/acct/reservations?cost=1", token);
            assertThat(foreign.statusCode()).isEqualTo(400);
            assertThat(OpenApiDocument.conforming(foreign.body(), "Problem").get("parameter").asText())
                    .isEqualTo("Sluice-Reservation");

            LimiterClient.Settled settled = same.client().settle("llm", "acct", token, 15);

            assertThat(settled.remaining()).hasValue(85);
        }
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
        "POST | limits/llm/acct/reservations | estimate | /limits/{id}/{key}/reservations",
        "POST | limits/llm/acct/reservations?estimate=0 | estimate | /limits/{id}/{key}/reservations",
        "POST | limits/llm/acct/reservations?estimate=101 | estimate | /limits/{id}/{key}/reservations",
        "POST | limits/partner-api/reservations?estimate=1 | id | /limits/{id}/reservations",
        "PUT | limits/llm/acct/reservations?cost=1 | Sluice-Reservation | /limits/{id}/{key}/reservations",
        "PUT | limits/partner-api/reservations?cost=1 | id | /limits/{id}/reservations"})
    void badRequest_is400AsTheOpenApiDocumentSays(String method, String path, String parameter, String documented)
            throws Exception {
        OpenApiDocument.assertBadRequest(server.request(method, path, ""), parameter, documented, method);
    }

    @Test
    void settle_forgedTokenInTheHeader_is400NamingIt_andATokenInThePathIsNoEndpoint() throws Exception {
        String token = reserved("acct", 40).get("reservation").asText();

        HttpResponse<String> forged = settle(server, "limits/llm/acct/reservations?cost=0", "forged.token");
        HttpResponse<String> inPath = server.request("PUT", "limits/llm/acct/reservations/" + token + "?cost=0", "");

        OpenApiDocument.assertBadRequest(forged, "Sluice-Reservation", "/limits/{id}/{key}/reservations", "PUT");
        assertThat(forged.body()).contains("not a reservation token of this service");
        assertThat(inPath.statusCode()).isEqualTo(404);
        assertThat(settled("acct", token, 40).get("alreadySettled").asBoolean()).as("neither settled it").isFalse();
    }

    @Test
    void settle_tokenOfAnotherKeyOrAPermitOrAMissingCost_is400NamingIt() throws Exception {
        String token = reserved("acct", 40).get("reservation").asText();

        HttpResponse<String> otherKey = settle(server, "limits/llm/other/reservations?cost=1", token);
        HttpResponse<String> noCost = settle(server, "limits/llm/acct/reservations", token);

        assertThat(otherKey.statusCode()).isEqualTo(400);
        assertThat(otherKey.body()).contains("a reservation of limit 'llm' and key 'acct', not of this path");
        assertThat(noCost.statusCode()).isEqualTo(400);
        assertThat(OpenApiDocument.conforming(noCost.body(), "Problem").path("parameter").asText()).isEqualTo("cost");
        assertThat(settled("acct", token, 40).get("alreadySettled").asBoolean()).as("refusals settled nothing")
                .isFalse();
    }

    @Test
    void client_reserveAndSettle_andARefusal() {
        LimiterClient client = server.client();

        LimiterClient.Reservation tokens = client.reserve("llm", "acct-7", 60);
        LimiterClient.Reservation refused = client.reserve("llm", "acct-7", 50);
        LimiterClient.Settled settled = client.settle("llm", "acct-7", tokens.token(), 75);

        assertThat(tokens.granted()).isTrue();
        assertThat(tokens.remaining()).hasValue(40);
        assertThat(refused.granted()).isFalse();
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofMinutes(1));
        assertThat(settled.debt()).isEqualTo(15);
        assertThat(client.settle("llm", "acct-7", tokens.token(), 75).alreadySettled()).isTrue();
        assertThatThrownBy(() -> client.settle("llm", "acct-7", "not-a-token", 1))
                .isInstanceOfSatisfying(LimiterServiceException.class, e -> assertThat(e.status()).isEqualTo(400));
    }

    @Test
    void list_meteredIds_sayTheirUnitAndLimits_andTheirAlgorithmOnce() throws Exception {
        String list = server.get("limits").body();

        assertThat(list).contains("\"metered\":{\"unit\":\"tokens\",\"limits\":[{\"name\":"
                + "\"llm:100 tokens/1m\",\"permits\":100,\"periodMs\":60000}]}");
        // TestServer read it with a parser that refuses a repeated member; and it is there once, not left out.
        assertThat(list).contains("{\"id\":\"llm\",\"perKey\":true,\"algorithm\":\"sliding_window_log\",\"limits\":");
    }

    /**
     * Issue 40.2: on an id with limits in a unit, with no tokens left and a debt, every answer that says when or grants
     * would count requests alone (a delay said "now" while a reservation waited a minute): each is a 400 naming
     * {@code id} that says to reserve, and counts nothing.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "GET | limits/llm/acct/delay | | id | /limits/{id}/{key}/delay",
        "GET | limits/llm/acct/delay?cost=2 | | id | /limits/{id}/{key}/delay",
        "POST | limits/llm/acct/increment | | id | /limits/{id}/{key}/increment",
        "POST | limits/llm/acct/increment?at=1767225599000 | | id | /limits/{id}/{key}/increment",
        "POST | limits/llm/acct/acquire | | id | /limits/{id}/{key}/acquire",
        "POST | limits/llm/acct/acquire?maxWaitMs=0 | | id | /limits/{id}/{key}/acquire",
        "POST | limits/acquire | {\"requests\": [{\"id\": \"partner-api\"}, {\"id\": \"llm\", \"key\": \"acct\"}]}"
                + " | requests[1].id | /limits/acquire"})
    void rateEndpoint_idWithAUnitInDebt_is400SayingToReserve(String method, String path, String body,
                                                             String parameter, String documented) throws Exception {
        settled("acct", reserved("acct", 10).get("reservation").asText(), 130);

        HttpResponse<String> answer = server.request(method, path, body == null ? "" : body, "Content-Type",
                "application/json");

        OpenApiDocument.assertBadRequest(answer, parameter, documented, method);
        assertThat(answer.body()).contains("limit 'llm' counts tokens beside requests",
                "reserve a call's estimate with POST limits/llm/{key}/reservations?estimate=");
        LimitsFile.Entry llm = LimitsFile.parse("limits.json", LIMITS).find("llm").orElseThrow();
        assertThat(store.execute(llm.counterKey("acct"), Command.peek(llm.policy().orElseThrow(), 0)).remaining())
                .as("the one reservation's request, nothing more").isEqualTo(2);
        LimitsFile.Entry partner = LimitsFile.parse("limits.json", LIMITS).find("partner-api").orElseThrow();
        assertThat(store.execute(partner.counterKey(""), Command.peek(partner.policy().orElseThrow(), 0)).remaining())
                .as("a batch counts none of its items").isEqualTo(10);
    }
}
