package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.ManualTimeSource;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.StoreServices;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a settle may do through the service (issue 38.1, 38.9, 38.15), over real HTTP on Jetty 12 and Jersey, on a
 * local store standing for the cluster and a manual clock: a cost above the id's {@code maxActual} is a 400 naming
 * {@code cost} that settles nothing, and one at it locks the key for the time its debt takes; a settle past the token's
 * lifetime charges an excess only, and a settle's mark lives as long as the token; a difference is given back at most
 * once, when the store's answer was lost after it settled, and when another instance settles under the {@code local}
 * fallback; an excess whose store call failed is charged on the retry.
 */
class SettleBoundsServiceTest {

    /** 10,000 tokens a minute per key, in a token bucket: the issue's reservation of 10,000 is its capacity. */
    private static final String LIMITS = """
            {"limits": {
              "llm": {"algorithm": "token_bucket", "perKey": true, "permits": 10000, "period": "1m", "unit": "tokens"},
              "bounded": {"algorithm": "token_bucket", "perKey": true, "permits": 100, "period": "1h", "unit": "tokens",
                          "maxActual": 500}
            }}""";
    private static final String SIGNING_KEY = "permit-signing-key-of-the-tests-0123456789";
    private static final Duration LIFETIME = Duration.ofMinutes(2);

    private final ManualTimeSource time = new ManualTimeSource();
    /** The cluster every instance shares. */
    private final LocalCounterStore cluster = new LocalCounterStore(time, 10_000, Runnable::run);
    private final Scripted reaching = new Scripted(cluster);
    private final List<TestServer> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(TestServer::close);
    }

    /** An instance of the service counting in {@code store}. */
    private TestServer instance(CounterStore store) throws Exception {
        TestServer server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LIMITS)).store(store).timeSource(time)
                .permitSigningKey(SIGNING_KEY).reservationLifetime(LIFETIME).build()));
        servers.add(server);
        return server;
    }

    private static JsonNode reserved(TestServer server, String id, long estimate) throws Exception {
        HttpResponse<String> response = server.post("limits/" + id + "/acct/reservations?estimate=" + estimate, "");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return OpenApiDocument.conforming(response.body(), "Reservation");
    }

    private static HttpResponse<String> settle(TestServer server, String id, String token, String cost)
            throws Exception {
        return server.request("PUT", "limits/" + id + "/acct/reservations?cost=" + cost, "", "Sluice-Reservation",
                token);
    }

    private static JsonNode settled(TestServer server, String id, String token, long cost) throws Exception {
        HttpResponse<String> response = settle(server, id, token, Long.toString(cost));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return OpenApiDocument.conforming(response.body(), "Settled");
    }

    /** The tokens the key has left, as a look at the shared store sees them. */
    private long left(String id) {
        LimitsFile.Entry entry = LimitsFile.parse("limits.json", LIMITS).find(id).orElseThrow();
        return cluster.execute(entry.meteredKey("acct"), Command.peek(entry.metered().orElseThrow(), 0)).remaining();
    }

    @Test
    void settle_theIssuesHugeCost_is400NamingCostAndAtItsMaxActualLocksForTheDebtsTime() throws Exception {
        TestServer server = instance(cluster);
        String token = reserved(server, "llm", 10_000).get("reservation").asText();

        HttpResponse<String> huge = settle(server, "llm", token, "1300000000000");

        OpenApiDocument.assertBadRequest(huge, "cost", "/limits/{id}/{key}/reservations", "PUT");
        assertThat(huge.body()).contains("expected the actual cost, an integer from 0 to 100000 (the largest actual"
                + " cost of limit 'llm' in tokens, its maxActual), got \\\"1300000000000\\\"");
        // Nothing settled: the reservation settles at its maximum, ten times the capacity, and owes 90,000.
        assertThat(settled(server, "llm", token, 100_000).get("debt").asLong()).isEqualTo(90_000);
        HttpResponse<String> refused = server.post("limits/llm/acct/reservations?estimate=10000", "");
        assertThat(refused.statusCode()).isEqualTo(429);
        // 100,000 tokens of refill at 10,000 a minute before the next 10,000 fit: ten minutes.
        assertThat(refused.headers().firstValue("Retry-After")).contains("600");
        time.advance(Duration.ofMinutes(10));
        reserved(server, "llm", 10_000);
    }

    @Test
    void settle_aboveAnIdsOwnMaxActual_is400AndAtItSettles() throws Exception {
        TestServer server = instance(cluster);
        String token = reserved(server, "bounded", 40).get("reservation").asText();

        assertThat(settle(server, "bounded", token, "501").statusCode()).isEqualTo(400);
        assertThat(settled(server, "bounded", token, 500).get("debt").asLong()).isEqualTo(460);
    }

    @Test
    void settle_pastTheTokensLifetime_chargesAnExcessOnlyAndGivesNothingBack() throws Exception {
        TestServer server = instance(cluster);
        JsonNode reservation = reserved(server, "bounded", 40);
        assertThat(reservation.get("expiresAt").asLong()).isEqualTo((time.nanos() + LIFETIME.toNanos()) / 1_000_000);
        String token = reservation.get("reservation").asText();
        time.advance(LIFETIME);

        JsonNode below = settled(server, "bounded", token, 10);
        JsonNode above = settled(server, "bounded", token, 50);

        assertThat(below.get("expired").asBoolean()).isTrue();
        assertThat(below.get("alreadySettled").asBoolean()).isFalse();
        // 100 an hour refilled 3 tokens in the 2 minutes; the 30 below the estimate stay counted.
        assertThat(below.get("remaining").asLong()).isEqualTo(63);
        assertThat(above.get("expired").asBoolean()).isTrue();
        assertThat(above.get("remaining").asLong()).as("the excess of 10 charged").isEqualTo(53);
        assertThat(cluster.permitKeys()).as("no mark for an expired token").isZero();
    }

    @Test
    void settle_leavesAMarkThatLivesAsLongAsTheTokenAndAMinute() throws Exception {
        TestServer server = instance(cluster);
        String token = reserved(server, "bounded", 40).get("reservation").asText();
        settled(server, "bounded", token, 10);
        assertThat(cluster.permitKeys()).isEqualTo(1);

        time.advance(LIFETIME.minusNanos(1));
        assertThat(settled(server, "bounded", token, 10).get("alreadySettled").asBoolean()).isTrue();
        time.advance(Duration.ofMinutes(1));
        cluster.cleanUp();
        assertThat(cluster.permitKeys()).as("until the token's end and a minute").isEqualTo(1);
        time.advance(Duration.ofNanos(1));
        cluster.cleanUp();
        assertThat(cluster.permitKeys()).isZero();
    }

    @Test
    void settle_giveBackWhoseAnswerWasLostAfterItSettled_isNotGivenBackAgainOnARetry() throws Exception {
        TestServer server = instance(reaching.asStore());
        String token = reserved(server, "bounded", 40).get("reservation").asText();
        reaching.loseTheNextSettlesAnswer = true;

        HttpResponse<String> lost = settle(server, "bounded", token, "10");
        JsonNode retried = settled(server, "bounded", token, 10);

        assertThat(lost.statusCode()).isEqualTo(503);
        assertThat(left("bounded")).as("given back once").isEqualTo(90);
        assertThat(retried.get("alreadySettled").asBoolean()).isTrue();
        assertThat(left("bounded")).isEqualTo(90);
    }

    @Test
    void settle_excessWhoseStoreCallFailed_isChargedOnTheRetry() throws Exception {
        TestServer server = instance(reaching.asStore());
        String token = reserved(server, "bounded", 40).get("reservation").asText();
        reaching.failTheNextSettle = true;

        HttpResponse<String> failed = settle(server, "bounded", token, "70");
        assertThat(left("bounded")).as("not charged").isEqualTo(60);
        JsonNode retried = settled(server, "bounded", token, 70);

        assertThat(failed.statusCode()).isEqualTo(503);
        assertThat(retried.get("alreadySettled").asBoolean()).isFalse();
        assertThat(retried.get("debt").asLong()).isEqualTo(30);
        assertThat(left("bounded")).isEqualTo(30);
    }

    @Test
    void settle_underTheLocalFallbackOfAnotherInstance_neverGivesTheDifferenceBackTwice() throws Exception {
        Scripted toInstanceB = new Scripted(cluster);
        TestServer a = instance(FailurePolicyStore.fallingBackTo(reaching.asStore(), Duration.ofSeconds(5),
                new LocalCounterStore(time, 1_000, Runnable::run)));
        TestServer b = instance(FailurePolicyStore.fallingBackTo(toInstanceB.asStore(), Duration.ofSeconds(5),
                new LocalCounterStore(time, 1_000, Runnable::run)));
        String token = reserved(a, "bounded", 40).get("reservation").asText();
        toInstanceB.down = true;

        HttpResponse<String> whileDown = settle(b, "bounded", token, "10");
        assertThat(whileDown.statusCode()).as("B's mark is only in B: no give-back").isEqualTo(503);
        assertThat(left("bounded")).isEqualTo(60);
        assertThat(settled(a, "bounded", token, 10).get("alreadySettled").asBoolean()).isFalse();
        assertThat(left("bounded")).isEqualTo(90);
        assertThat(settle(b, "bounded", token, "10").statusCode()).isEqualTo(503);
        toInstanceB.down = false;
        assertThat(settled(b, "bounded", token, 10).get("alreadySettled").asBoolean()).isTrue();

        assertThat(left("bounded")).as("given back once").isEqualTo(90);
    }

    /**
     * The way to the shared store, scripted: down (every call fails), a settle that fails before it reaches the store,
     * or one whose answer is lost after the store settled (a time-out that came too late).
     */
    private static final class Scripted {
        private final CounterStore store;
        volatile boolean down;
        volatile boolean failTheNextSettle;
        volatile boolean loseTheNextSettlesAnswer;

        Scripted(CounterStore store) {
            this.store = store;
        }

        CounterStore asStore() {
            return new CounterStore() {
                @Override
                public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
                    if (down) {
                        return CompletableFuture.failedFuture(new IllegalStateException("cluster down"));
                    }
                    boolean settling = command instanceof Command.Settle;
                    if (settling && failTheNextSettle) {
                        failTheNextSettle = false;
                        return CompletableFuture.failedFuture(new IllegalStateException("settle lost on its way"));
                    }
                    CompletionStage<R> result = store.executeAsync(key, command);
                    if (settling && loseTheNextSettlesAnswer) {
                        loseTheNextSettlesAnswer = false;
                        return result.thenCompose(settled -> CompletableFuture.failedFuture(
                                new IllegalStateException("answer lost after the settle")));
                    }
                    return result;
                }

                @Override
                public StoreServices services() {
                    return store.services();
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
