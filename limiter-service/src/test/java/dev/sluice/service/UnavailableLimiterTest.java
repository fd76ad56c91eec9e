package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.service.client.LimiterClient;
import dev.sluice.service.client.LimiterServiceException;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The service over a store that fails every call, behind a failure policy, through real HTTP on Jetty 12 and Jersey:
 * what the policy answers is marked {@code limiterUnavailable} and carries no {@code remaining}, since no counter
 * counted it; the Java client says so too.
 */
class UnavailableLimiterTest {

    private static final String TOKEN = "0123456789abcdef-operations";

    private TestServer server;

    @AfterEach
    void stop() {
        server.close();
    }

    private LimiterClient start(FailurePolicyStore store) throws Exception {
        server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LimiterServiceTest.LIMITS)).store(store)
                .operationsToken(TOKEN).build()));
        return server.client();
    }

    private static FailurePolicyStore allowing() {
        return FailurePolicyStore.allowing(new FailingStore(), Duration.ofMinutes(1));
    }

    private static FailurePolicyStore rejecting() {
        return FailurePolicyStore.rejecting(new FailingStore(), Duration.ofMinutes(1));
    }

    @Test
    void acquire_storeFailsUnderAllow_grantsWithoutRemainingAndSaysTheLimiterIsUnavailable() throws Exception {
        LimiterClient client = start(allowing());

        HttpResponse<String> raw = server.post("limits/partner-api/acquire", "");
        assertThat(raw.statusCode()).isEqualTo(200);
        assertThat(raw.body()).contains("\"granted\":true", "\"limit\":10", "\"limiterUnavailable\":true")
                .doesNotContain("remaining");
        OpenApiDocument.conforming(raw.body(), "Slot");

        LimiterClient.Slot slot = client.acquire("github", "acct-1", 1, Duration.ZERO);
        assertThat(slot.granted()).isTrue();
        assertThat(slot.limiterUnavailable()).isTrue();
        assertThat(slot.remaining()).isEmpty();
    }

    @Test
    void acquirePermit_storeFailsUnderAllow_grantsAPermitOfNoCounterWhoseReleaseIs204() throws Exception {
        server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", PermitServiceTest.LIMITS)).store(allowing()).build()));

        HttpResponse<String> raw = server.post("limits/exports/permits", "");
        assertThat(raw.statusCode()).isEqualTo(200);
        assertThat(raw.body()).contains("\"granted\":true", "\"limit\":2", "\"limiterUnavailable\":true")
                .doesNotContain("remaining");
        String token = OpenApiDocument.conforming(raw.body(), "Permit").get("permit").asText();

        assertThat(server.request("DELETE", "limits/exports/permits", "", "Sluice-Permit", token).statusCode())
                .isEqualTo(204);
        LimiterClient.Permit permit = server.client().acquirePermit("exports", null);
        assertThat(permit.limiterUnavailable()).isTrue();
        assertThat(permit.remaining()).isEmpty();
    }

    @Test
    void acquirePermit_storeFailsUnderReject_is503() throws Exception {
        server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", PermitServiceTest.LIMITS)).store(rejecting()).build()));

        HttpResponse<String> raw = server.post("limits/exports/permits", "");

        assertThat(raw.statusCode()).isEqualTo(503);
        assertThat(raw.body()).contains("\"limiterUnavailable\":true").doesNotContain("remaining");
    }

    @Test
    void delay_storeFailsUnderAllow_fitsNowWithoutRemainingAndSaysTheLimiterIsUnavailable() throws Exception {
        LimiterClient client = start(allowing());

        String raw = server.get("limits/partner-api/delay").body();
        assertThat(raw).contains("\"limiterUnavailable\":true", "\"delayMs\":0").doesNotContain("remaining");
        OpenApiDocument.conforming(raw, "Delay");
        LimiterClient.Delay delay = client.delay("partner-api", null, 1);
        assertThat(delay.limiterUnavailable()).isTrue();
        assertThat(delay.remaining()).isEmpty();
        assertThat(delay.delay()).isZero();
    }

    @Test
    void acquireAll_storeFailsUnderReject_refusesEachWithoutRemainingAndSaysTheLimiterIsUnavailable()
            throws Exception {
        LimiterClient client = start(rejecting());

        HttpResponse<String> raw = server.post("limits/acquire", "{\"requests\": [{\"id\": \"partner-api\"}]}");
        assertThat(raw.statusCode()).isEqualTo(200);
        assertThat(raw.body()).contains("\"granted\":false", "\"limiterUnavailable\":true", "\"retryAfterMs\":1000")
                .doesNotContain("remaining");
        OpenApiDocument.conforming(raw.body().substring(raw.body().indexOf('[') + 1, raw.body().lastIndexOf(']')),
                "Refusal");

        List<LimiterClient.Slot> slots = client.acquireAll(List.of(
                new LimiterClient.SlotRequest("partner-api", null, 1),
                new LimiterClient.SlotRequest("github", "acct-1", 2)), Duration.ZERO);
        assertThat(slots).extracting(LimiterClient.Slot::granted).containsExactly(false, false);
        assertThat(slots).extracting(LimiterClient.Slot::limiterUnavailable).containsExactly(true, true);
        assertThat(slots).allSatisfy(slot -> assertThat(slot.remaining()).isEmpty());
    }

    @Test
    void acquire_storeFailsUnderReject_is503WithoutRemaining() throws Exception {
        LimiterClient client = start(rejecting());

        HttpResponse<String> raw = server.post("limits/partner-api/acquire", "");
        assertThat(raw.statusCode()).isEqualTo(503);
        assertThat(raw.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(raw.body()).contains("https://sluice.dev/problems/limiter-unavailable",
                "\"limiterUnavailable\":true").doesNotContain("remaining");
        assertThatThrownBy(() -> client.acquire("partner-api", null, 1, Duration.ZERO))
                .isInstanceOfSatisfying(LimiterServiceException.class, e -> assertThat(e.status()).isEqualTo(503));
    }

    @Test
    void increment_storeFailsUnderAllow_is503SinceNothingWasCounted() throws Exception {
        LimiterClient client = start(allowing());

        assertThatThrownBy(() -> client.increment("partner-api", null, 1, null))
                .isInstanceOfSatisfying(LimiterServiceException.class, e -> assertThat(e.status()).isEqualTo(503));
    }

    @Test
    void state_storeFailsUnderAllow_is503RatherThanTheFailurePolicysNumbers() throws Exception {
        LimiterClient operator = start(allowing()).withBearerToken(TOKEN);

        HttpResponse<String> raw = server.get("limits/partner-api/state", "Authorization", "Bearer " + TOKEN);
        assertThat(raw.statusCode()).isEqualTo(503);
        assertThat(raw.body()).contains("https://sluice.dev/problems/limiter-unavailable").doesNotContain("used");
        assertThatThrownBy(() -> operator.state("partner-api", null))
                .isInstanceOfSatisfying(LimiterServiceException.class, e -> assertThat(e.status()).isEqualTo(503));
    }

    /** A store whose every call fails, as one whose cluster is gone. */
    private static final class FailingStore implements CounterStore {
        @Override
        public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
            return CompletableFuture.failedFuture(new IllegalStateException("cluster down"));
        }

        @Override
        public void close() {
        }
    }
}
