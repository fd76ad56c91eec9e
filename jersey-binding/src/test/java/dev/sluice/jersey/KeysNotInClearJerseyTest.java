package dev.sluice.jersey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.jersey.client.ClientRule;
import dev.sluice.jersey.client.RateLimitClientFilter;
import dev.sluice.limiter.RateLimitExceededException;
import dev.sluice.servlet.CanaryKeys;
import dev.sluice.servlet.JettyServer;
import dev.sluice.servlet.LogCapture;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys never leave the Jersey binding or the client filter in clear: requests whose keys are {@link CanaryKeys} (a
 * client address through a trusted proxy, a path and a query parameter, a principal, an API key header) go over real
 * HTTP to a real Jersey application on Jetty; they pass, are rejected over their limits, and then meet a store that
 * fails naming the key it failed on (as a third-party store may), which the binding logs. A client filter then calls
 * the same API under canary paths until the API's {@code 429} pauses it and it gives up. No log record (Sluice's at
 * every level), no Sluice response part and no exception the client sees holds a canary.
 */
class KeysNotInClearJerseyTest {

    private static final String RULES = """
            {"clientAddress": {"trustedProxies": ["127.0.0.1"]},
             "rules": [
              {"id": "per-tenant", "match": {"paths": ["/items/by-id/*"]}, "key": {"type": "query", "name": "tenant"},
               "limits": [{"permits": 2, "period": "1m"}]},
              {"id": "per-api-key", "match": {"paths": ["/plain"]}, "key": {"type": "header", "name": "X-Api-Key"},
               "limits": [{"permits": 2, "period": "1m"}]}
            ]}
            """;

    /** Each request: path and header name, value pairs. */
    private static final List<String[]> REQUESTS = List.of(
            new String[] {"/items", "X-Forwarded-For", CanaryKeys.IP},
            new String[] {"/items/by-id/" + CanaryKeys.PATH + "?tenant=" + CanaryKeys.QUERY},
            new String[] {"/items/mine", "X-User", CanaryKeys.USER},
            new String[] {"/plain", "X-Api-Key", CanaryKeys.API_KEY});

    @TempDir
    Path dir;

    /** A store that, once told to, fails every call with a message naming the key, as some stores do. */
    private static final class FailingStore implements CounterStore {
        private final CounterStore delegate = new LocalCounterStore();
        private volatile boolean failing;

        @Override
        public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
            if (failing && !(command instanceof Command.Peek)) {
                throw new IllegalStateException("no counter for " + key);
            }
            return delegate.executeAsync(key, command);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    @Test
    void bindingAndClient_canaryKeysThroughEveryOutcome_appearInNoLogResponseOrException() throws Exception {
        FailingStore store = new FailingStore();
        List<String> responses = new ArrayList<>();
        try (LogCapture logs = LogCapture.start()) {
            ResourceConfig app = new ResourceConfig(Resources.Items.class, Resources.Plain.class,
                    Resources.HeaderAuthentication.class).register(RateLimitFeature.builder()
                    .rulesFile(Files.writeString(dir.resolve("rules.json"), RULES)).store(store).build());
            String clientFailure;
            try (JettyServer server = JettyServer.start(context -> JerseyServlet.deploy(context, app))) {
                for (String[] request : REQUESTS) {
                    for (int i = 0; i < 4; i++) {
                        responses.add(CanaryKeys.rateLimitPart(server.get(request[0], headers(request))));
                    }
                }
                store.failing = true;
                for (String[] request : REQUESTS) {
                    HttpResponse<String> response = server.get(request[0], headers(request));
                    assertThat(response.statusCode()).as("a failed evaluation lets the request through").isEqualTo(200);
                    responses.add(CanaryKeys.rateLimitPart(response));
                }
                store.failing = false;
                clientFailure = callUntilPaused(server);
            }

            assertSoftly(soft -> {
                soft.assertThat(CanaryKeys.leaks(logs.records())).as("log records").isEmpty();
                soft.assertThat(CanaryKeys.leaks(responses)).as("responses").isEmpty();
                soft.assertThat(CanaryKeys.leaks(List.of(clientFailure))).as("client exception").isEmpty();
            });
            assertThat(responses).filteredOn(response -> response.startsWith("429")).hasSize(REQUESTS.size() * 2);
            assertThat(String.join("\n", logs.records()))
                    .contains("Sluice could not evaluate a GET request to " + Resources.Items.class.getName() + "#one",
                            "java.lang.IllegalStateException: no counter for per-tenant@");
            assertThat(clientFailure).contains(RateLimitExceededException.class.getName());
        }
    }

    /**
     * Calls {@code /items/by-id/CANARY} through a client filter counting per path: the API answers {@code 429} (its
     * limit is used up), which pauses the path, and the next call gives up at once. Returns that call's failure,
     * stack trace and all, as an application would log it.
     */
    private static String callUntilPaused(JettyServer server) {
        ClientRule rule = ClientRule.builder("items-api").path("/items/**").scope(ClientRule.Scope.HOST_AND_PATH)
                .policy(Policy.of(Algorithm.GCRA, Limit.of(100, Duration.ofSeconds(1)))).build();
        Client client = ClientBuilder.newClient()
                .register(RateLimitClientFilter.builder().rule(rule).maxWait(Duration.ZERO).build());
        try {
            String uri = server.uri(REQUESTS.get(1)[0]).toString();
            assertThat(client.target(uri).request().get().getStatus()).isEqualTo(429);
            Throwable failure = catchThrowable(() -> client.target(uri).request().get());
            StringWriter trace = new StringWriter();
            failure.printStackTrace(new PrintWriter(trace));
            return trace.toString();
        } finally {
            client.close();
        }
    }

    private static String[] headers(String[] request) {
        return Arrays.copyOfRange(request, 1, request.length);
    }
}
