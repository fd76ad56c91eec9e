package dev.sluice.jersey.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.limiter.RateLimitExceededException;
import dev.sluice.servlet.JettyServer;
import dev.sluice.servlet.LogCapture;
import dev.sluice.store.LocalCounterStore;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A remote's {@code Retry-After} beyond the client filter's {@code maxPause}, from a real Jetty answering real Jersey
 * calls, on a manual clock: the calls of the rule pause for {@code maxPause} only (not for decades), nothing throws
 * out of the response filter, and a WARNING says so once per rule, naming the rule and not the key.
 */
class ClientRetryAfterTest {

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ManualTimeSource time = new ManualTimeSource();
    private final RemoteApi api = new RemoteApi(Integer.MAX_VALUE, 1);

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }

    private JettyServer remote() throws Exception {
        JettyServer server = JettyServer.start(context -> context.addServlet(new ServletHolder(api), "/*"));
        resources.add(server);
        return server;
    }

    private Client client(RateLimitClientFilter.Builder filter) {
        LocalCounterStore store = new LocalCounterStore(time, 1_000);
        resources.add(store);
        ClientRule rule = ClientRule.builder("upstream").path("/api/**")
                .policy(Policy.of(Algorithm.GCRA, Limit.of(100, Duration.ofSeconds(1)))).build();
        Client client = ClientBuilder.newClient().register(filter.rule(rule).store(store).timeSource(time)
                .maxWait(Duration.ofMinutes(1)).build());
        resources.add(client::close);
        return client;
    }

    private static int status(Client client, JettyServer remote, String path) {
        try (Response response = client.target(remote.uri(path)).request().get()) {
            return response.getStatus();
        }
    }

    /** Two billion seconds, a number past a {@code long}, and the year 9999 as an HTTP date. */
    @ParameterizedTest
    @ValueSource(strings = {"2000000000", "99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"})
    void remote429_retryAfterBeyondMaxPause_pausesForMaxPauseAndSaysSoOnce(String retryAfter) throws Exception {
        JettyServer remote = remote();
        Client client = client(RateLimitClientFilter.builder());
        try (LogCapture logs = LogCapture.start()) {
            api.rejectNextWithRetryAfter(retryAfter);
            assertThat(status(client, remote, "/api/first")).as("the 429 returned, nothing thrown").isEqualTo(429);

            assertThatThrownBy(() -> status(client, remote, "/api/paused"))
                    .isInstanceOf(ProcessingException.class).cause()
                    .isInstanceOfSatisfying(RateLimitExceededException.class, refused -> assertThat(
                            refused.decision().retryAfter()).isEqualTo(RateLimitClientFilter.DEFAULT_MAX_PAUSE));
            time.advance(RateLimitClientFilter.DEFAULT_MAX_PAUSE);
            assertThat(status(client, remote, "/api/after")).as("once maxPause has passed").isEqualTo(200);

            api.rejectNextWithRetryAfter(retryAfter);
            assertThat(status(client, remote, "/api/again")).isEqualTo(429);

            List<String> warnings = logs.records().stream().filter(line -> line.contains("client rule")).toList();
            assertThat(warnings).as("said once for the rule").singleElement().satisfies(line -> assertThat(line)
                    .contains("WARNING", "client rule 'upstream'", "maxPause, 3600 s")
                    .doesNotContain("127.0.0.1", "/api"));
        }
        assertThat(api.arrivals()).as("the paused call never left").hasSize(1);
    }

    @Test
    void remote429_retryAfterWithinMaxPause_pausesForAllOfIt() throws Exception {
        JettyServer remote = remote();
        Client client = client(RateLimitClientFilter.builder().maxPause(Duration.ofSeconds(30)));
        api.rejectNextWithRetryAfter("30");
        assertThat(status(client, remote, "/api/first")).isEqualTo(429);
        long pausedAt = time.nanos();

        assertThat(status(client, remote, "/api/next")).as("waited on the manual clock").isEqualTo(200);

        assertThat(Duration.ofNanos(time.nanos() - pausedAt)).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void maxPause_zeroOrBeyondADay_isRefused() {
        assertThatThrownBy(() -> RateLimitClientFilter.builder().maxPause(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxPause must be more than zero and at most 1 day, got PT0S");
        assertThatThrownBy(() -> RateLimitClientFilter.builder().maxPause(Duration.ofHours(25)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got PT25H");
    }

    @Test
    void retryAfter_numberPastALong_readsAsTheLongestDuration() {
        assertThat(RateLimitClientFilter.retryAfter("99999999999999999999", 0))
                .contains(Duration.ofSeconds(Long.MAX_VALUE));
        assertThat(RateLimitClientFilter.retryAfter("-5", 0)).as("not delay-seconds").isEmpty();
        assertThat(RateLimitClientFilter.retryAfter(" 7 ", 0)).contains(Duration.ofSeconds(7));
    }
}
