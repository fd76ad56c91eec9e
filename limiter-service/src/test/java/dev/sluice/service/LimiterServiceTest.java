package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.service.client.LimiterClient;
import dev.sluice.service.client.LimiterServiceException;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.SecurityContext;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.glassfish.jersey.server.ResourceConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The service through real HTTP on Jetty 12 and Jersey, on a local store and a manual clock shared by the store and
 * the service: the seed's flow, acquire, batches, bad input (nothing counted), operations and their credentials.
 */
class LimiterServiceTest {

    static final String LIMITS = """
            {"limits": {
              "partner-api": {"permits": 10, "period": "1m"},
              "github": {"permits": 3, "period": "10s", "perKey": true},
              "bucket": {"algorithm": "token_bucket", "permits": 5, "period": "1s"}
            }}""";
    private static final String TOKEN = "0123456789abcdef-operations";

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);
    private TestServer server;
    private LimiterClient client;

    @BeforeEach
    void start() throws Exception {
        server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LIMITS)).store(store).timeSource(time).build()));
        client = server.client();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private long nowMillis() {
        return time.nanos() / 1_000_000;
    }

    @Test
    void delay_freshLimit_fitsNowAndCountsNothing() {
        LimiterClient.Delay delay = client.delay("partner-api", null, 1);

        assertThat(delay.limit()).isEqualTo(10);
        assertThat(delay.remaining()).hasValue(10);
        assertThat(delay.limiterUnavailable()).isFalse();
        assertThat(delay.delay()).isZero();
        assertThat(delay.nextAt()).isEqualTo(Instant.ofEpochMilli(nowMillis()));
        assertThat(client.delay("partner-api", null, 1).remaining()).hasValue(10);
    }

    @Test
    void seedFlow_delayThenIncrementAtTheTimeMade_countsInTheStepItWasMadeIn() throws Exception {
        Instant made = Instant.ofEpochMilli(nowMillis() - 45_000);
        for (int i = 0; i < 9; i++) {
            assertThat(client.delay("partner-api", null, 1).delay()).isZero();
            client.increment("partner-api", null, 1, made);
        }
        // The RFC 3339 form, and epoch milliseconds over raw HTTP: the same instant.
        HttpResponse<String> raw = server.post("limits/partner-api/increment?at=" + made.toEpochMilli(), "");
        assertThat(raw.statusCode()).isEqualTo(200);
        assertThat(raw.body()).contains("\"counted\":true", "\"remaining\":0", "\"delayMs\":15000");

        LimiterClient.Delay full = client.delay("partner-api", null, 1);
        assertThat(full.remaining()).hasValue(0);
        assertThat(full.delay()).as("made 45 s ago, they leave the 1-minute window in 15 s")
                .isEqualTo(Duration.ofSeconds(15));
        assertThat(full.nextAt()).isEqualTo(made.plus(Duration.ofMinutes(1)));
        time.advance(Duration.ofSeconds(15));
        assertThat(client.delay("partner-api", null, 1).remaining()).hasValue(10);
    }

    @Test
    void increment_rfc3339At_isTheSameInstantAsEpochMillis() {
        Instant made = Instant.ofEpochMilli(nowMillis() - 2_500);
        client.increment("github", "acct-1", 2, made);

        LimiterClient.Delay next = client.delay("github", "acct-1", 2);
        assertThat(next.remaining()).hasValue(1);
        assertThat(next.nextAt()).isEqualTo(made.plusSeconds(10));
    }

    @Test
    void increment_beyondTheLimit_countsEveryRequestMade() {
        LimiterClient.Delay last = null;
        for (int i = 0; i < 12; i++) {
            last = client.increment("partner-api", null, 1, null);
        }
        assertThat(last.remaining()).hasValue(0);
        assertThat(last.delay()).isEqualTo(Duration.ofMinutes(1));
        assertThat(store.execute(counterKey("partner-api", ""), Command.peek(policy("partner-api"),
                0)).remaining()).isZero();
        assertThat(client.acquire("partner-api", null, 1, Duration.ZERO).granted()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"at=yesterday", "at=2026-01-01T00:00:00", "at=99999999999999999999",
        "at=1767225661000", "at=1767225539000", "cost=0", "cost=11", "cost=-1", "cost=1.5", "cost=two"})
    void increment_badAtOrCost_is400NamingTheParameterAndCountsNothing(String query) throws Exception {
        // The manual clock stands at 1767225600000 ms: 61 s ahead is in the future, 61 s back older than the window.
        HttpResponse<String> response = server.post("limits/partner-api/increment?" + query, "");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        String parameter = query.substring(0, query.indexOf('='));
        assertThat(response.body()).contains("\"type\":\"https://sluice.dev/problems/invalid-request\"",
                "\"status\":400", "\"detail\":\"" + parameter + ": ", "Nothing was counted.",
                "\"parameter\":\"" + parameter + "\"");
        assertThat(client.delay("partner-api", null, 1).remaining()).hasValue(10);
    }

    @Test
    void increment_atSlightlyAhead_countsAsNow() {
        client.increment("partner-api", null, 1, Instant.ofEpochMilli(nowMillis() + 900));
        assertThat(client.delay("partner-api", null, 1).remaining()).hasValue(9);
    }

    @Test
    void increment_tokenBucketBeyondItsLevel_isOwedBeforeTheNextGrant() {
        // Seven made against a bucket of five: counted now, two owed, so nothing is left until they are paid back.
        client.increment("bucket", null, 4, null);
        client.increment("bucket", null, 3, null);
        LimiterClient.Delay next = client.delay("bucket", null, 1);
        assertThat(next.remaining()).hasValue(0);
        assertThat(next.delay()).as("three tokens at 5 per second").isEqualTo(Duration.ofMillis(600));
    }

    @Test
    void unknownId_is404NamingIt() throws Exception {
        HttpResponse<String> response = server.get("limits/no-such-limit/delay");
        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.body()).contains("https://sluice.dev/problems/unknown-limit", "'no-such-limit'");
        assertThatThrownBy(() -> client.increment("no-such-limit", null, 1, null))
                .isInstanceOfSatisfying(LimiterServiceException.class, e -> assertThat(e.status()).isEqualTo(404));
    }

    @Test
    void perKeyLimit_countsEachKeyApartAndNeedsAKey() throws Exception {
        client.increment("github", "acct-1", 3, null);

        assertThat(client.delay("github", "acct-1", 1).remaining()).hasValue(0);
        assertThat(client.delay("github", "acct 2:ü", 1).remaining()).hasValue(3);
        assertThatThrownBy(() -> client.delay("github", "acct/2", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(server.get("limits/github/delay").statusCode()).isEqualTo(400);
        assertThat(server.get("limits/partner-api/acct-1/delay").body()).contains("has one counter and no keys");
    }

    @Test
    void acquire_untilFull_grantsNowThenTheNextSlotWithinTheWait() throws Exception {
        for (int i = 0; i < 10; i++) {
            LimiterClient.Slot slot = client.acquire("partner-api", null, 1, Duration.ZERO);
            assertThat(slot.granted()).isTrue();
            assertThat(slot.delay()).isZero();
        }
        HttpResponse<String> refused = server.post("limits/partner-api/acquire?maxWaitMs=0", "");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("60");
        assertThat(refused.body()).contains("\"granted\":false", "\"retryAfterMs\":60000", "Nothing was counted.");

        LimiterClient.Slot later = client.acquire("partner-api", null, 1, Duration.ofMinutes(1));
        assertThat(later.granted()).isTrue();
        assertThat(later.delay()).isEqualTo(Duration.ofMinutes(1));
        assertThat(later.at()).isEqualTo(Instant.ofEpochMilli(nowMillis() + 60_000));
        // The reserved slot counts from now on; nine more fit when the first ten leave.
        assertThat(client.delay("partner-api", null, 1).remaining()).hasValue(0);
        for (int i = 0; i < 9; i++) {
            assertThat(client.acquire("partner-api", null, 1, Duration.ofMinutes(1)).delay())
                    .isEqualTo(Duration.ofMinutes(1));
        }
        assertThat(client.acquire("partner-api", null, 1, Duration.ZERO).delay()).as("the next window's")
                .isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void acquire_maxWaitBeyondTheService_is400() throws Exception {
        HttpResponse<String> response = server.post("limits/partner-api/acquire?maxWaitMs=60001", "");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("maxWaitMs: expected whole milliseconds from 0 to 60000");
    }

    @Test
    void acquireAll_severalIdsAndKeys_decidesEachInOrder() {
        List<LimiterClient.Slot> slots = client.acquireAll(List.of(
                new LimiterClient.SlotRequest("github", "acct-1", 3),
                new LimiterClient.SlotRequest("github", "acct-1", 1),
                new LimiterClient.SlotRequest("partner-api", null, 2)), Duration.ofSeconds(5));

        assertThat(slots).extracting(LimiterClient.Slot::granted).containsExactly(true, false, true);
        assertThat(slots.get(1).delay()).isEqualTo(Duration.ofSeconds(10));
        assertThat(slots.get(2).remaining()).hasValue(8);
        assertThat(slots).extracting(LimiterClient.Slot::limiterUnavailable).containsOnly(false);
    }

    @Test
    void acquireAll_oneInvalidItem_is400AndCountsNothing() throws Exception {
        HttpResponse<String> response = server.post("limits/acquire",
                "{\"requests\": [{\"id\": \"partner-api\"}, {\"id\": \"github\", \"key\": \"a\", \"cost\": 4}]}",
                "Content-Type", "application/json");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("requests[1].cost: expected an integer from 1 to 3");
        assertThat(client.delay("partner-api", null, 1).remaining()).hasValue(10);
    }

    @Test
    void acquireAll_malformedBody_is400() throws Exception {
        assertThat(server.post("limits/acquire", "{\"requests\": [", "Content-Type", "application/json")
                .statusCode()).isEqualTo(400);
        assertThat(server.post("limits/acquire", "{\"requests\": [{\"id\": \"a\", \"colour\": 1}]}").body())
                .contains("requests[0].colour: unknown member");
    }

    @Test
    void list_andOpenApi_describeTheService() throws Exception {
        assertThat(server.get("limits").body()).contains("\"id\":\"partner-api\"", "\"perKey\":true",
                "\"algorithm\":\"stepped_sliding_window\"", "\"maxWaitMs\":60000");
        HttpResponse<String> openApi = server.get("limits/openapi.json");
        assertThat(openApi.statusCode()).isEqualTo(200);
        assertThat(openApi.body()).contains("\"openapi\": \"3.0.3\"", "\"url\": \"/api\"",
                "\"/limits/{id}/{key}/acquire\"");
    }

    @Test
    void operations_noCredentialConfigured_areNotThere() throws Exception {
        assertThat(server.get("limits/partner-api/state").statusCode()).isEqualTo(404);
        assertThat(server.post("limits/partner-api/reset", "", "Authorization", "Bearer " + TOKEN).statusCode())
                .isEqualTo(404);
    }

    @Test
    void operations_withToken_needItAndResetAndReadKeys() throws Exception {
        restart(LimiterService.builder().operationsToken(TOKEN));
        client.increment("github", "acct-1", 2, null);

        HttpResponse<String> missing = server.get("limits/github/acct-1/state");
        assertThat(missing.statusCode()).isEqualTo(401);
        assertThat(missing.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"sluice-limiter\"");
        HttpResponse<String> wrong = server.post("limits/github/acct-1/reset", "", "Authorization",
                "Bearer " + TOKEN + "x");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.body()).doesNotContain(TOKEN);
        assertThat(client.delay("github", "acct-1", 1).remaining()).as("nothing reset").hasValue(1);

        LimiterClient operator = client.withBearerToken(TOKEN);
        LimiterClient.KeyState state = operator.state("github", "acct-1");
        assertThat(state.used()).isEqualTo(2);
        assertThat(state.remaining()).isEqualTo(1);
        assertThat(state.nextPermit()).isEqualTo(Duration.ofSeconds(10));
        operator.reset("github", "acct-1");
        assertThat(client.delay("github", "acct-1", 1).remaining()).hasValue(3);
    }

    @Test
    void operations_withRole_needAnAuthenticatedUserInIt() throws Exception {
        restart(LimiterService.builder().operationsRole("limiter-admin"), new TestLogin());

        assertThat(server.get("limits/partner-api/state").statusCode()).isEqualTo(401);
        assertThat(server.get("limits/partner-api/state", "X-Test-User", "guest").statusCode()).isEqualTo(403);
        HttpResponse<String> admin = server.get("limits/partner-api/state", "X-Test-User", "limiter-admin");
        assertThat(admin.statusCode()).isEqualTo(200);
        assertThat(admin.body()).contains("\"remaining\":10", "\"used\":0");
    }

    @Test
    void storeFailure_is503WithoutTheStoresMessage() throws Exception {
        CounterStore failing = new CounterStore() {
            @Override
            public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
                if (command instanceof Command.Record) {
                    return CompletableFuture.failedFuture(new UnsupportedOperationException("no record"));
                }
                return CompletableFuture.failedFuture(new IllegalStateException("cluster down while deciding " + key));
            }

            @Override
            public void close() {
            }
        };
        server.close();
        server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LIMITS)).store(failing).build()));

        HttpResponse<String> delay = server.get("limits/github/secret-account/delay");
        assertThat(delay.statusCode()).isEqualTo(503);
        assertThat(delay.body()).contains("limiter-unavailable").doesNotContain("cluster down");
        HttpResponse<String> increment = server.post("limits/github/secret-account/increment", "");
        assertThat(increment.statusCode()).as("a store without record").isEqualTo(501);
    }

    private void restart(LimiterService.Builder builder, Object... more) throws Exception {
        server.close();
        ResourceConfig app = new ResourceConfig().register(builder.limits(LimitsFile.parse("limits.json", LIMITS))
                .store(store).timeSource(time).build());
        for (Object component : more) {
            app.register(component);
        }
        server = TestServer.start(app);
        client = server.client();
    }

    private static Policy policy(String id) {
        return LimitsFile.parse("limits.json", LIMITS).find(id).orElseThrow().policy().orElseThrow();
    }

    private static String counterKey(String id, String key) {
        return LimitsFile.parse("limits.json", LIMITS).find(id).orElseThrow().counterKey(key);
    }

    /** Logs in the user named by {@code X-Test-User}, in the role of the same name: a container's login, for tests. */
    @PreMatching
    static final class TestLogin implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            @Nullable String user = request.getHeaderString("X-Test-User");
            if (user == null) {
                return;
            }
            request.setSecurityContext(new SecurityContext() {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return role.equals(user);
                }

                @Override
                public boolean isSecure() {
                    return false;
                }

                @Override
                public String getAuthenticationScheme() {
                    return "TEST";
                }
            });
        }
    }
}
