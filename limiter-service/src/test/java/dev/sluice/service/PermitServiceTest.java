package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.ManualTimeSource;
import dev.sluice.service.client.LimiterClient;
import dev.sluice.service.client.LimiterServiceException;
import dev.sluice.store.LocalCounterStore;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Concurrency permits through the service, over real HTTP on Jetty 12 and Jersey, on a local store and a manual clock
 * shared by the store and the service: grants up to the limit, 429 beyond, release by token (idempotent, refused for
 * a token the service did not sign), leases that end, the Java client's permit, answers checked against the OpenAPI
 * document.
 */
class PermitServiceTest {

    static final String LIMITS = """
            {"limits": {
              "exports": {"concurrency": 2, "maxHold": "1m"},
              "workers": {"concurrency": 1, "maxHold": "30s", "perKey": true},
              "partner-api": {"permits": 10, "period": "1m"}
            }}""";
    private static final String SIGNING_KEY = "permit-signing-key-of-the-tests-0123456789";

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);
    private TestServer server;
    private LimiterClient client;

    @BeforeEach
    void start() throws Exception {
        server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LIMITS)).store(store).timeSource(time)
                .permitSigningKey(SIGNING_KEY).build()));
        client = server.client();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private JsonNode acquired(String path) throws Exception {
        HttpResponse<String> response = server.post(path, "");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return OpenApiDocument.conforming(response.body(), "Permit");
    }

    /** {@code DELETE path} with {@code token} in the header {@code Sluice-Permit}, as clients release. */
    private HttpResponse<String> released(String path, String token) throws Exception {
        return server.request("DELETE", path, "", "Sluice-Permit", token);
    }

    @Test
    void acquirePermit_upToTheLimit_grantsThen429WithoutRetryAfter() throws Exception {
        JsonNode first = acquired("limits/exports/permits");
        JsonNode second = acquired("limits/exports/permits?leaseMs=20000");
        HttpResponse<String> third = server.post("limits/exports/permits", "");

        assertThat(first.get("remaining").asLong()).isEqualTo(1);
        assertThat(first.get("leaseMs").asLong()).as("the limit's maxHold by default").isEqualTo(60_000);
        long now = time.nanos() / 1_000_000;
        assertThat(first.get("leaseEndsAt").asLong()).isEqualTo(now + 60_000);
        assertThat(first.get("leaseEndsAtTime").asText()).isEqualTo(Instant.ofEpochMilli(now + 60_000).toString());
        assertThat(second.get("remaining").asLong()).isZero();
        assertThat(second.get("leaseMs").asLong()).isEqualTo(20_000);
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(third.headers().firstValue("Retry-After")).isEmpty();
        JsonNode problem = OpenApiDocument.conforming(third.body(), "PermitRefusal");
        assertThat(problem.get("detail").asText()).startsWith("All 2 permits of limit 'exports' are held.");
        assertThat(problem.get("policies").get(0).asText()).isEqualTo("exports:2 concurrent");
        assertThat(store.permitsHeld()).isEqualTo(2);
    }

    @Test
    void releasePermit_grantedToken_freesAPermitForTheNext() throws Exception {
        String token = acquired("limits/exports/permits").get("permit").asText();
        acquired("limits/exports/permits");

        HttpResponse<String> released = released("limits/exports/permits", token);

        assertThat(released.statusCode()).isEqualTo(204);
        assertThat(store.permitsHeld()).isEqualTo(1);
        acquired("limits/exports/permits");
        assertThat(server.post("limits/exports/permits", "").statusCode()).isEqualTo(429);
    }

    @Test
    void releasePermit_twice_is204AndReleasesOnce() throws Exception {
        String token = acquired("limits/exports/permits").get("permit").asText();
        acquired("limits/exports/permits");

        assertThat(released("limits/exports/permits", token).statusCode()).isEqualTo(204);
        assertThat(released("limits/exports/permits", token).statusCode()).isEqualTo(204);

        assertThat(store.permitsHeld()).isEqualTo(1);
    }

    @Test
    void acquirePermit_leaseEnded_permitReturnsAndItsReleaseIs204() throws Exception {
        String leased = acquired("limits/exports/permits?leaseMs=10000").get("permit").asText();
        acquired("limits/exports/permits");
        assertThat(server.post("limits/exports/permits", "").statusCode()).isEqualTo(429);

        time.advance(Duration.ofSeconds(10));

        acquired("limits/exports/permits");
        assertThat(released("limits/exports/permits", leased).statusCode()).isEqualTo(204);
        assertThat(server.post("limits/exports/permits", "").statusCode())
                .as("releasing an ended lease frees nobody else's permit").isEqualTo(429);
    }

    @Test
    void acquirePermit_perKey_eachKeyHoldsItsOwn() throws Exception {
        acquired("limits/workers/acct-1/permits");

        acquired("limits/workers/acct-2/permits");

        assertThat(server.post("limits/workers/acct-1/permits", "").statusCode()).isEqualTo(429);
    }

    @Test
    void releasePermit_alteredToken_is400NamingTheHeader() throws Exception {
        String token = acquired("limits/exports/permits").get("permit").asText();
        // Inside the signature: its last character has bits the decoder ignores (changing it can change nothing).
        int at = token.indexOf('.') + 5;
        String altered = token.substring(0, at) + (token.charAt(at) == 'A' ? 'B' : 'A') + token.substring(at + 1);

        HttpResponse<String> response = released("limits/exports/permits", altered);

        OpenApiDocument.assertBadRequest(response, "Sluice-Permit", "/limits/{id}/permits", "DELETE");
        assertThat(response.body()).contains("signed with another key");
        assertThat(store.permitsHeld()).isEqualTo(1);
    }

    /** A token in the path would stay in every access log: the service takes it in the header only. */
    @Test
    void releasePermit_tokenInThePathOrNone_releasesNothing() throws Exception {
        String token = acquired("limits/exports/permits").get("permit").asText();

        HttpResponse<String> inPath = server.request("DELETE", "limits/exports/permits/" + token, "");
        HttpResponse<String> none = server.request("DELETE", "limits/exports/permits", "");

        assertThat(inPath.statusCode()).isEqualTo(404);
        OpenApiDocument.assertBadRequest(none, "Sluice-Permit", "/limits/{id}/permits", "DELETE");
        assertThat(none.body()).contains("expected the token of the permit");
        assertThat(store.permitsHeld()).isEqualTo(1);
    }

    /** Found by ServiceFuzzTest: a token that held a key of thousands of characters was too long to be taken back. */
    @Test
    void releasePermit_keyOfThousandsOfCharacters_releasesThroughAShortToken() throws Exception {
        String key = "k".repeat(3000);
        String token = acquired("limits/workers/" + key + "/permits").get("permit").asText();

        HttpResponse<String> otherKey = released("limits/workers/" + "k".repeat(2999) + "/permits", token);
        HttpResponse<String> released = released("limits/workers/" + key + "/permits", token);

        assertThat(token.length()).isLessThan(1000);
        assertThat(otherKey.statusCode()).isEqualTo(400);
        assertThat(otherKey.body()).contains("a permit of limit 'workers' and another key, not of this path");
        assertThat(released.statusCode()).as(released.body()).isEqualTo(204);
        assertThat(store.permitsHeld()).isZero();
    }

    @Test
    void releasePermit_tokenOfAServiceWithAnotherKey_is400() throws Exception {
        try (TestServer other = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LIMITS)).store(store).timeSource(time).build()))) {
            String token = other.client().acquirePermit("exports", null).token();

            assertThat(released("limits/exports/permits", token).statusCode()).isEqualTo(400);
            assertThat(store.permitsHeld()).isEqualTo(1);
        }
    }

    @Test
    void releasePermit_tokenOfAnotherKey_is400() throws Exception {
        String token = acquired("limits/workers/acct-1/permits").get("permit").asText();

        HttpResponse<String> response = released("limits/workers/acct-2/permits", token);

        OpenApiDocument.assertBadRequest(response, "Sluice-Permit", "/limits/{id}/{key}/permits", "DELETE");
        assertThat(response.body()).contains("a permit of limit 'workers' and key 'acct-1', not of this path");
        assertThat(store.permitsHeld()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
        "POST | limits/exports/permits?leaseMs=60001 | leaseMs | /limits/{id}/permits",
        "POST | limits/exports/permits?leaseMs=0 | leaseMs | /limits/{id}/permits",
        "POST | limits/exports/permits?leaseMs=soon | leaseMs | /limits/{id}/permits",
        "POST | limits/partner-api/permits | id | /limits/{id}/permits",
        "POST | limits/workers/permits | key | /limits/{id}/permits",
        "GET | limits/exports/delay | id | /limits/{id}/delay",
        "POST | limits/exports/acquire | id | /limits/{id}/acquire"})
    void badRequest_is400AsTheOpenApiDocumentSays(String method, String path, String parameter, String documented)
            throws Exception {
        OpenApiDocument.assertBadRequest(server.request(method, path, ""), parameter, documented, method);
        assertThat(store.permitsHeld()).isZero();
    }

    @Test
    void clientPermit_closed_releasesOnceAndARefusalIsNotGranted() {
        try (LimiterClient.Permit held = client.acquirePermit("workers", "acct-9", Duration.ofSeconds(5))) {
            assertThat(held.granted()).isTrue();
            assertThat(held.remaining()).hasValue(0);
            assertThat(held.leaseEndsAt()).isEqualTo(Instant.ofEpochMilli(time.nanos() / 1_000_000 + 5_000));
            LimiterClient.Permit refused = client.acquirePermit("workers", "acct-9");
            assertThat(refused.granted()).isFalse();
            assertThat(refused.remaining()).hasValue(0);
            refused.close();
        }

        assertThat(store.permitsHeld()).isZero();
        LimiterClient.Permit again = client.acquirePermit("workers", "acct-9");
        assertThat(again.granted()).isTrue();
        client.releasePermit("workers", "acct-9", again.token());
        again.close();
        assertThat(store.permitsHeld()).isZero();
    }

    @Test
    void clientReleasePermit_forgedToken_throws400() {
        assertThatThrownBy(() -> client.releasePermit("exports", null, "not-a-token"))
                .isInstanceOfSatisfying(LimiterServiceException.class, e -> assertThat(e.status()).isEqualTo(400));
    }

    @Test
    void list_concurrencyIds_sayPermitsAndMaxHold() throws Exception {
        assertThat(server.get("limits").body()).contains("{\"id\":\"exports\",\"perKey\":false,\"concurrency\":"
                + "{\"name\":\"exports:2 concurrent\",\"permits\":2,\"maxHoldMs\":60000}}");
    }

    @Test
    void reset_concurrencyId_forgetsItsPermits() throws Exception {
        try (TestServer operated = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LIMITS)).store(store).timeSource(time)
                .operationsToken("0123456789abcdef-operations").build()))) {
            acquired("limits/exports/permits");

            operated.client().withBearerToken("0123456789abcdef-operations").reset("exports", null);

            assertThat(store.permitsHeld()).isZero();
        }
    }
}
