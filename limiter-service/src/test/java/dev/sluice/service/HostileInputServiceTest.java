package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ManualTimeSource;
import dev.sluice.store.Command;
import dev.sluice.store.LocalCounterStore;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a caller may send the service that it should not (issue 38.9 and 38.11), through real HTTP on Jetty 12 and
 * Jersey: bodies past {@value RequestChecks#MAX_BODY_BYTES} bytes are a 413 before anything else (by their length, or
 * as they are read when they come in chunks), and a number past a long in any numeric parameter is a 400 naming that
 * parameter, never a 500; nothing is counted either way.
 */
class HostileInputServiceTest {

    private static final String LIMITS = """
            {"limits": {
              "partner-api": {"permits": 10, "period": "1m"},
              "exports": {"concurrency": 2, "maxHold": "1m"},
              "llm": {"algorithm": "sliding_window_log",
                      "limits": [{"permits": 3, "period": "1m"}, {"permits": 100, "period": "1m", "unit": "tokens"}]}
            }}""";
    private static final String CLIENT_TOKEN = "client-token-of-the-tests-0123";
    private static final String BATCH = "{\"requests\": [{\"id\": \"partner-api\"}]}";

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);
    private TestServer server;

    @BeforeEach
    void start() throws Exception {
        server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LIMITS)).store(store).timeSource(time).build()));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private long partnerApiRemaining() {
        LimitsFile.Entry entry = LimitsFile.parse("limits.json", LIMITS).find("partner-api").orElseThrow();
        return store.execute(entry.counterKey(""), Command.peek(entry.policy().orElseThrow(), 0)).remaining();
    }

    /** The batch padded with blanks to {@code bytes} bytes: still one valid JSON object. */
    private static String batchOf(int bytes) {
        return BATCH + " ".repeat(bytes - BATCH.length());
    }

    @Test
    void batch_bodyAtTheLimit_isRead() throws Exception {
        HttpResponse<String> answer = server.post("limits/acquire", batchOf(RequestChecks.MAX_BODY_BYTES),
                "Content-Type", "application/json");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(partnerApiRemaining()).isEqualTo(9);
    }

    @Test
    void batch_bodyPastTheLimitByItsLength_is413AndCountsNothing() throws Exception {
        HttpResponse<String> answer = server.post("limits/acquire", batchOf(RequestChecks.MAX_BODY_BYTES + 1),
                "Content-Type", "application/json");

        assertThat(answer.statusCode()).isEqualTo(413);
        assertThat(OpenApiDocument.conforming(answer.body(), "Problem").get("detail").asText())
                .isEqualTo("The service reads bodies of at most 65536 bytes. Nothing was counted.");
        assertThat(partnerApiRemaining()).isEqualTo(10);
    }

    /** Sent in chunks, without a length: read up to the limit and one byte more, then refused. */
    @Test
    void batch_chunkedBodyPastTheLimit_is413AndCountsNothing() throws Exception {
        byte[] start = BATCH.getBytes(StandardCharsets.UTF_8);
        InputStream endless = new SequenceInputStream(Collections.enumeration(List.of(new ByteArrayInputStream(start),
                new ByteArrayInputStream(new byte[8 * RequestChecks.MAX_BODY_BYTES]))));

        HttpResponse<String> answer = server.post("limits/acquire",
                HttpRequest.BodyPublishers.ofInputStream(() -> endless), "Content-Type", "application/json");

        assertThat(answer.statusCode()).isEqualTo(413);
        assertThat(partnerApiRemaining()).isEqualTo(10);
    }

    /** Before anything else: the credential, the cross-site check and the endpoint come after the length. */
    @Test
    void anyPost_bodyPastTheLimit_is413BeforeTheCredentialOrTheCrossSiteCheck() throws Exception {
        server.close();
        server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LIMITS)).store(store).timeSource(time)
                .clientToken(CLIENT_TOKEN).build()));

        String large = batchOf(RequestChecks.MAX_BODY_BYTES + 1);
        assertThat(server.post("limits/acquire", large).statusCode()).isEqualTo(413);
        assertThat(server.post("limits/partner-api/increment", large).statusCode()).isEqualTo(413);
        assertThat(server.requestFromAPage("POST", "limits/partner-api/acquire", large, "Content-Type", "text/plain")
                .statusCode()).isEqualTo(413);
        assertThat(server.post("limits/partner-api/acquire", "").statusCode()).as("the credential still needed")
                .isEqualTo(401);
        assertThat(partnerApiRemaining()).isEqualTo(10);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "GET | limits/partner-api/delay?cost={n} | cost | /limits/{id}/delay",
        "POST | limits/partner-api/increment?cost={n} | cost | /limits/{id}/increment",
        "POST | limits/partner-api/increment?at={n} | at | /limits/{id}/increment",
        "POST | limits/partner-api/acquire?cost={n} | cost | /limits/{id}/acquire",
        "POST | limits/partner-api/acquire?maxWaitMs={n} | maxWaitMs | /limits/{id}/acquire",
        "POST | limits/exports/permits?leaseMs={n} | leaseMs | /limits/{id}/permits",
        "POST | limits/llm/reservations?estimate={n} | estimate | /limits/{id}/reservations",
        "PUT | limits/llm/reservations?cost={n} | cost | /limits/{id}/reservations"})
    void numericParameter_pastALong_is400NamingIt(String method, String path, String parameter, String documented)
            throws Exception {
        String token = server.post("limits/llm/reservations?estimate=1", "").body().replaceFirst(
                ".*\"reservation\":\"([^\"]+)\".*", "$1");
        for (String number : List.of("9223372036854775807", "9223372036854775808", "9999999999999999999",
                "99999999999999999999", "-9223372036854775809", "18446744073709551616")) {
            HttpResponse<String> answer = server.request(method, path.replace("{n}", number), "",
                    "Sluice-Reservation", token);

            OpenApiDocument.assertBadRequest(answer, parameter, documented, method);
        }
        assertThat(partnerApiRemaining()).isEqualTo(10);
        assertThat(store.permitsHeld()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "{\"requests\": [{\"id\": \"partner-api\", \"cost\": 9999999999999999999}]} | requests[0].cost",
        "{\"requests\": [{\"id\": \"partner-api\", \"cost\": 99999999999999999999}]} | requests[0].cost",
        "{\"maxWaitMs\": 9223372036854775808, \"requests\": [{\"id\": \"partner-api\"}]} | maxWaitMs",
        "{\"requests\": [{\"id\": \"partner-api\"}], \"requests\": [{\"id\": \"partner-api\"}]} | body"})
    void batch_numberPastALongOrARepeatedMember_is400NamingIt(String body, String parameter) throws Exception {
        HttpResponse<String> answer = server.post("limits/acquire", body, "Content-Type", "application/json");

        OpenApiDocument.assertBadRequest(answer, parameter, "/limits/acquire", "POST");
        assertThat(partnerApiRemaining()).isEqualTo(10);
    }
}
