package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.ManualTimeSource;
import dev.sluice.store.LocalCounterStore;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every answer of the service is JSON, through real HTTP on Jetty 12 and Jersey: Jersey's own 404, 405 and 406 under
 * the service's path become problem documents, and each 400 the service gives matches what the OpenAPI document
 * promises (its Problem schema, and the {@code parameter} at fault). Also the start line.
 */
class ServiceAnswersTest {

    private static final String TOKEN = "0123456789abcdef-operations";

    private final ManualTimeSource time = new ManualTimeSource();
    private final Logger log = Logger.getLogger(LimiterService.class.getName());
    private final List<LogRecord> logged = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private TestServer server;

    @BeforeEach
    void start() throws Exception {
        log.addHandler(capture);
        server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LimiterServiceTest.LIMITS))
                .store(new LocalCounterStore(time, 10_000, Runnable::run)).timeSource(time).operationsToken(TOKEN)
                .build()));
    }

    @AfterEach
    void stop() {
        server.close();
        log.removeHandler(capture);
    }

    @Test
    void start_localStore_logsOneInfoLineWithStoreLimitsFailurePolicyAndOperations() {
        assertThat(logged).hasSize(1);
        assertThat(logged.get(0).getLevel()).isEqualTo(Level.INFO);
        assertThat(logged.get(0).getMessage()).isEqualTo("Sluice limiter service started: store local (this instance"
                + " only), 3 limit ids from limits.json, no failure policy (a store failure answers 503), callers"
                + " open, operations on (bearer token), longest wait 60000 ms");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"DELETE, limits/partner-api/state, 405, 'GET, OPTIONS'",
        "GET, limits/partner-api/increment, 405, 'OPTIONS, POST'",
        "PUT, limits/github/acct-1/acquire, 405, 'OPTIONS, POST'",
        "GET, limits/partner-api, 404, ''",
        "GET, limits/github/acct-1/no-such-operation, 404, ''",
        "POST, limits/a/b/c/d, 404, ''"})
    void anyRequest_wrongMethodOrUnknownPath_isAProblemDocument(String method, String path, int status,
                                                                 String allowed) throws Exception {
        HttpResponse<String> response = server.request(method, path, "");

        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode problem = OpenApiDocument.conforming(response.body(), "Problem");
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        if (status == 405) {
            assertThat(problem.get("detail").asText()).isEqualTo("This path does not take " + method + "; it takes "
                    + allowed + ".");
            assertThat(response.headers().firstValue("Allow")).isPresent();
        }
    }

    @Test
    void unknownPath_underTheService_answersAsOperationsThatAreOff() throws Exception {
        TestServer operationsOff = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LimiterServiceTest.LIMITS))
                .store(new LocalCounterStore(time, 10_000, Runnable::run)).build()));
        try {
            HttpResponse<String> off = operationsOff.get("limits/partner-api/state");
            HttpResponse<String> unknown = operationsOff.get("limits/partner-api/no-such-operation");
            assertThat(off.statusCode()).isEqualTo(unknown.statusCode()).isEqualTo(404);
            assertThat(off.body()).as("nothing tells that the operations exist").isEqualTo(unknown.body());
        } finally {
            operationsOff.close();
        }
    }

    @Test
    void delay_acceptOnlyHtml_is406ProblemDocument() throws Exception {
        HttpResponse<String> response = server.get("limits/partner-api/delay", "Accept", "text/html");

        assertThat(response.statusCode()).isEqualTo(406);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(OpenApiDocument.conforming(response.body(), "Problem").get("detail").asText())
                .contains("application/json");
    }

    @Test
    void unknownPath_outsideTheService_isLeftToTheApplication() throws Exception {
        HttpResponse<String> response = server.get("limits-elsewhere");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.headers().firstValue("Content-Type")).isNotEqualTo("application/problem+json");
    }

    @ParameterizedTest(name = "{0} {1} -> {3}")
    @CsvSource(delimiter = '|', value = {
        "POST | limits/partner-api/increment?cost=0 | | cost | /limits/{id}/increment",
        "POST | limits/partner-api/increment?at=soon | | at | /limits/{id}/increment",
        "POST | limits/github/acct-1/increment?at=1767225661000 | | at | /limits/{id}/{key}/increment",
        "GET | limits/github/delay | | key | /limits/{id}/delay",
        "GET | limits/partner-api/acct-1/delay?cost=2 | | key | /limits/{id}/{key}/delay",
        "POST | limits/partner-api/acquire?maxWaitMs=soon | | maxWaitMs | /limits/{id}/acquire",
        "POST | limits/github/acct-1/acquire?cost=4 | | cost | /limits/{id}/{key}/acquire",
        "GET | limits/github/state | | key | /limits/{id}/state",
        "POST | limits/partner-api/acct-1/reset | | key | /limits/{id}/{key}/reset",
        "POST | limits/acquire | | body | /limits/acquire",
        "POST | limits/acquire | {\"requests\": [{\"id\": \"github\"}]} | requests[0].key | /limits/acquire",
        "POST | limits/acquire | {\"requests\": [{\"id\": \"bucket\", \"cost\": 6}]} | requests[0].cost"
                + " | /limits/acquire",
        "POST | limits/acquire | {\"requests\": []} | requests | /limits/acquire",
        "POST | limits/acquire | {\"maxWaitMs\": 60001, \"requests\": [{\"id\": \"bucket\"}]} | maxWaitMs"
                + " | /limits/acquire",
        "POST | limits/acquire | {\"requests\": [{\"id\": \"bucket\", \"colour\": 1}]} | requests[0].colour"
                + " | /limits/acquire"})
    void everyBadRequest_is400AsTheOpenApiDocumentSays(String method, String path, String body, String parameter,
                                                        String documentedPath) throws Exception {
        HttpResponse<String> response = server.request(method, path, body == null ? "" : body, "Authorization",
                "Bearer " + TOKEN);

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode operation = OpenApiDocument.operation(documentedPath, method);
        assertThat(operation.path("responses").path("400").path("description").asText())
                .as("the document lists this 400 and promises its parameter").contains("named in `parameter`");
        JsonNode problem = OpenApiDocument.conforming(response.body(), "Problem");
        assertThat(problem.path("parameter").asText()).isEqualTo(parameter);
        assertThat(problem.get("detail").asText()).startsWith(parameter + ": ").endsWith("Nothing was counted.");
    }
}
