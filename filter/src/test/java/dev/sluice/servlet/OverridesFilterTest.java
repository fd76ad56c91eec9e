package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.LocalCounterStore;
import jakarta.servlet.DispatcherType;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Overrides set through {@link RateLimitFilter#overrides()} on a real Jetty 12 (issue 27): a blocked key gets the
 * usual 429 and problem document until the override is removed, an exempt key passes uncounted, and every change is
 * logged at INFO with the key masked. A local store on a manual clock.
 */
class OverridesFilterTest {

    private static final String RULES = """
            {"rules": [{"id": "api", "match": {"paths": ["/api/**"]}, "key": {"type": "header", "name": "X-Key"},
                        "limits": [{"permits": 3, "period": "1m"}]}]}
            """;

    @TempDir
    Path dir;

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private final ManualTimeSource time = new ManualTimeSource();
    private final LocalCounterStore store = new LocalCounterStore(time, 10_000, Runnable::run);
    private RateLimitFilter filter;

    @AfterEach
    void closeStore() {
        store.close();
    }

    private JettyServer start() throws Exception {
        Path rules = Files.writeString(dir.resolve("rules.json"), RULES);
        filter = new RateLimitFilter(FilterSettings.builder().rules("file:" + rules).rulesReloadInterval(Duration.ZERO)
                .store(store).build());
        return servers.add(JettyServer.start(context -> {
            context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
            context.addServlet(new ServletHolder(new EchoServlet()), "/*");
        }));
    }

    private static int admitted(JettyServer server, String key, int attempts) throws Exception {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += server.get("/api/items", "X-Key", key).statusCode() == 200 ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void overrides_blockedKey_gets429WithTheProblemDocumentUntilRemoved() throws Exception {
        JettyServer server = start();
        try (LogCapture log = LogCapture.start()) {
            filter.overrides().set(LimitOverride.forKey("api", "account-42").blocked().lasting(Duration.ofHours(2))
                    .reason("credential stuffing, ticket 9").setBy("alice"));

            HttpResponse<String> blocked = server.get("/api/items", "X-Key", "account-42");

            assertThat(blocked.statusCode()).isEqualTo(429);
            assertThat(blocked.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(blocked.headers().firstValue("Retry-After")).hasValue("7200");
            assertThat(blocked.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
            assertThat(blocked.headers().firstValue("X-RateLimit-Reset")).hasValue("7200");
            assertThat(blocked.headers().firstValue("RateLimit")).hasValue("\"api:blocked\";r=0;t=7200");
            assertThat(blocked.headers().firstValue("RateLimit-Policy")).hasValue("\"api:3/1m\";q=3;w=60");
            assertThat(blocked.body()).contains("\"type\":\"https://sluice.dev/problems/rate-limited\"",
                    "\"violated-policies\":[\"api:blocked\"]");
            assertThat(admitted(server, "other", 5)).isEqualTo(3);

            assertThat(filter.overrides().remove(LimitOverride.Target.key("api", "account-42"), "bob")).isPresent();
            assertThat(admitted(server, "account-42", 5)).isEqualTo(3);

            assertThat(log.records()).anySatisfy(line -> assertThat(line).contains("override set: rule api, key #",
                    "blocked until", "set by alice", "reason \"credential stuffing, ticket 9\""));
            assertThat(log.records()).anySatisfy(line -> assertThat(line).contains("override removed by bob"));
            assertThat(log.records()).noneSatisfy(line -> assertThat(line).contains("account-42"));
        }
    }

    @Test
    void overrides_exemptKeyAndRaisedRule_areAppliedByTheFilter() throws Exception {
        JettyServer server = start();
        filter.overrides().set(LimitOverride.forKey("api", "partner").exempt().lasting(Duration.ofHours(1))
                .reason("partner load test").setBy("alice"));
        filter.overrides().set(LimitOverride.forRule("api").limits(Limit.of(5, Duration.ofMinutes(1)))
                .lasting(Duration.ofHours(1)).reason("launch").setBy("alice"));

        assertThat(admitted(server, "partner", 10)).isEqualTo(10);
        assertThat(server.get("/api/items", "X-Key", "partner").headers().firstValue("RateLimit-Policy")).isEmpty();
        assertThat(server.get("/api/items", "X-Key", "anyone").headers().firstValue("RateLimit-Policy"))
                .hasValue("\"api:5/1m\";q=5;w=60");
        assertThat(admitted(server, "anyone", 10)).isEqualTo(4);

        time.advance(Duration.ofHours(1));

        assertThat(admitted(server, "partner", 10)).isEqualTo(3);
    }
}
