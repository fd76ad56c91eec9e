package dev.sluice.jersey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.http.HeaderStyle;
import dev.sluice.servlet.FilterSettings;
import dev.sluice.servlet.JettyServer;
import dev.sluice.servlet.JettyServers;
import dev.sluice.servlet.LogCapture;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.servlet.ResponseContract;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.glassfish.jersey.internal.MapPropertiesDelegate;
import org.glassfish.jersey.server.ApplicationHandler;
import org.glassfish.jersey.server.ContainerRequest;
import org.glassfish.jersey.server.ContainerResponse;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Jersey binding in a real Jersey application on a real Jetty 12, asked over real HTTP (and once on its own). */
class RateLimitFeatureTest {

    private static final String SHARED_RULE = """
            {"rules": [{"id": "shared", "match": {"paths": ["/plain"]}, "key": {"type": "constant"},
                        "limits": [{"permits": 5, "period": "1m"}]}]}
            """;

    @TempDir
    Path dir;

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private JettyServer start(ResourceConfig app, RateLimitFilter servletFilter) throws Exception {
        JettyServer server = JettyServer.start(context -> {
            if (servletFilter != null) {
                context.addFilter(new FilterHolder(servletFilter), "/*", EnumSet.of(DispatcherType.REQUEST));
            }
            JerseyServlet.deploy(context, app);
        });
        servers.add(server);
        return server;
    }

    private static ResourceConfig app(RateLimitFeature feature) {
        ResourceConfig app = new ResourceConfig(Resources.Items.class, Resources.Plain.class,
                Resources.HeaderAuthentication.class);
        return feature == null ? app : app.register(feature);
    }

    private Path rulesFile(String json) throws Exception {
        return Files.writeString(Files.createTempFile(dir, "rules", ".json"), json);
    }

    @Test
    void classLevelAnnotation_countsEveryMethodWithoutItsOwn_andSendsExactHeaders() throws Exception {
        JettyServer server = start(app(new RateLimitFeature()), null);

        HttpResponse<String> rejected = ResponseContract.assertThreePerMinuteThenRejected(server, "/items",
                "items:3/1m");
        assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(rejected.body()).isEqualTo("{\"type\":\"https://sluice.dev/problems/rate-limited\","
                + "\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Rate limit 'items:3/1m' exceeded. Retry in 20 seconds.\","
                + "\"policies\":[\"items:3/1m\"],\"violated-policies\":[\"items:3/1m\"],\"retryAfter\":20}");
    }

    @Test
    void methodLevelAnnotation_keyedByPathParameter_countsEachValueApart() throws Exception {
        JettyServer server = start(app(new RateLimitFeature()), null);

        assertThat(server.get("/items/by-id/a").statusCode()).isEqualTo(200);
        assertThat(server.get("/items/by-id/a").statusCode()).isEqualTo(200);
        HttpResponse<String> third = server.get("/items/by-id/a");
        HttpResponse<String> other = server.get("/items/by-id/b");

        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.body()).contains("\"policies\":[\"item:2/1m\"]");
        assertThat(other.statusCode()).isEqualTo(200);
        assertThat(other.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
        assertThat(server.get("/items").headers().firstValue("X-RateLimit-Remaining"))
                .as("the method's own rule replaces the class's").hasValue("2");
    }

    @Test
    void principalKey_usesTheSecurityContextOfAuthentication() throws Exception {
        JettyServer server = start(app(new RateLimitFeature()), null);

        assertThat(server.get("/items/mine", "X-User", "alice").statusCode()).isEqualTo(200);
        assertThat(server.get("/items/mine", "X-User", "alice").statusCode()).isEqualTo(429);
        assertThat(server.get("/items/mine", "X-User", "bob").statusCode()).isEqualTo(200);
        HttpResponse<String> anonymous = server.get("/items/mine");
        assertThat(anonymous.statusCode()).as("no principal: counted under the client's address").isEqualTo(200);
        assertThat(anonymous.headers().firstValue("RateLimit")).hasValue("\"mine:1/1m\";r=0;t=60");
        assertThat(server.get("/items/mine").statusCode()).as("anonymous again, same address").isEqualTo(429);
    }

    @Test
    void exemptMethod_isNeverLimited() throws Exception {
        JettyServer server = start(app(new RateLimitFeature()), null);

        for (int i = 0; i < 5; i++) {
            HttpResponse<String> response = server.get("/items/health");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("RateLimit")).isEmpty();
        }
    }

    @Test
    void rulesFile_limitsMatchingPathsOfUnannotatedResources() throws Exception {
        RateLimitFeature feature = RateLimitFeature.builder().rulesFile(rulesFile(SHARED_RULE))
                .rulesReloadInterval(Duration.ZERO).build();
        JettyServer server = start(app(feature), null);

        for (int remaining = 4; remaining >= 0; remaining--) {
            assertThat(server.get("/plain").headers().firstValue("X-RateLimit-Remaining"))
                    .hasValue(Integer.toString(remaining));
        }
        assertThat(server.get("/plain").statusCode()).isEqualTo(429);
    }

    @Test
    void leakyBucketWithMaxDelay_requestThatWouldWait_isRejectedWithRetryAfterNotHeld() throws Exception {
        RateLimitFeature feature = RateLimitFeature.builder().rulesFile(rulesFile("""
                {"rules": [{"id": "queue", "match": {"paths": ["/plain"]}, "key": {"type": "constant"},
                            "algorithm": "leaky_bucket", "limits": [{"permits": 1, "period": "10s", "capacity": 5}],
                            "maxDelay": "1m"}]}
                """)).rulesReloadInterval(Duration.ZERO).build();
        JettyServer server = start(app(feature), null);

        assertThat(server.get("/plain").statusCode()).isEqualTo(200);
        HttpResponse<String> wouldWait = server.get("/plain");

        assertThat(wouldWait.statusCode()).as("its slot is 10 s away, within maxDelay").isEqualTo(429);
        assertThat(wouldWait.headers().firstValue("Retry-After").map(Long::parseLong)).hasValueSatisfying(
                seconds -> assertThat(seconds).isBetween(9L, 10L));
    }

    /** The start lines of Sluice's components logged while {@code start} runs. */
    private static List<String> startLines(ThrowingRunnable start) throws Exception {
        try (LogCapture log = LogCapture.start()) {
            start.run();
            return log.records().stream().filter(record -> record.contains("Sluice")
                    && record.contains(" started: ")).toList();
        }
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void start_ownLocalStore_logsOneStartLineSayingItsLimitsAreNotShared() throws Exception {
        List<String> lines = startLines(() -> start(app(new RateLimitFeature()), null));

        assertThat(lines).singleElement().asString()
                .contains("INFO: Sluice Jersey binding started: store local (this instance only), 3 rules from"
                        + " annotations, no failure policy, headers both; it counts in a local store of its own, so"
                        + " its limits are not shared with other instances: it was given no store, and no Sluice"
                        + " servlet filter published one");
    }

    @Test
    void start_jerseyServletWithoutLoadOnStartup_bindingStartsOnlyAtTheFirstRequestAsDocsJerseySays()
            throws Exception {
        try (LogCapture log = LogCapture.start()) {
            // As web.xml declares it without load-on-startup: by class, its resources named in an init-param.
            ServletHolder jersey = new ServletHolder(ServletContainer.class);
            jersey.setInitParameter("jersey.config.server.provider.classnames", Resources.Items.class.getName());
            JettyServer server = JettyServer.start(context -> context.addServlet(jersey, "/*"));
            servers.add(server);
            assertThat(startLines(log)).as("before any request").isEmpty();

            server.get("/items/1");

            assertThat(startLines(log)).as("at the first request").hasSize(1);
        }
    }

    private static List<String> startLines(LogCapture log) {
        return log.records().stream().filter(record -> record.contains("Sluice Jersey binding started: ")).toList();
    }

    @Test
    void start_behindTheServletFilter_logsTheFiltersStoreWithItsFailurePolicyAndTheRulesFile() throws Exception {
        Path rules = rulesFile(SHARED_RULE);
        RateLimitFilter servletFilter = new RateLimitFilter(FilterSettings.builder()
                .store(FailurePolicyStore.rejecting(new LocalCounterStore(), Duration.ofMillis(250))).build());
        RateLimitFeature feature = RateLimitFeature.builder().rulesFile(rules).headerStyle(HeaderStyle.DRAFT).build();

        List<String> lines = startLines(() -> start(app(feature), servletFilter));

        assertThat(lines).hasSize(2).anySatisfy(line -> assertThat(line).contains("INFO: Sluice filter '"))
                .anySatisfy(line -> assertThat(line).contains("INFO: Sluice Jersey binding started: store local (this"
                        + " instance only), 4 rules from annotations and " + rules + " (reload every 5s), failure"
                        + " policy reject, timeout 250ms, headers draft; it counts in the servlet filter's store, as"
                        + " the filter does"));
    }

    @Test
    void servletFilterInFront_ruleCountedThere_isNotCountedAgain() throws Exception {
        Path rules = rulesFile(SHARED_RULE);
        RateLimitFilter servletFilter = new RateLimitFilter(FilterSettings.builder().rules("file:" + rules)
                .rulesReloadInterval(Duration.ZERO).build());
        RateLimitFeature feature = RateLimitFeature.builder().rulesFile(rules).rulesReloadInterval(Duration.ZERO)
                .build();
        JettyServer server = start(app(feature), servletFilter);

        for (int remaining = 4; remaining >= 0; remaining--) {
            HttpResponse<String> response = server.get("/plain");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue(Integer.toString(remaining));
            assertThat(response.headers().firstValue("RateLimit")).as("the next token in 12 s")
                    .hasValue("\"shared:5/1m\";r=" + remaining + ";t=12");
            assertThat(response.headers().firstValue("X-RateLimit-Reset")).as("full again")
                    .hasValue(Long.toString(12L * (5 - remaining)));
        }
        assertThat(server.get("/plain").statusCode()).isEqualTo(429);
    }

    @Test
    void servletFilterInFront_annotationRulesStillCountedByJersey_headersCoverBoth() throws Exception {
        RateLimitFilter servletFilter = new RateLimitFilter(FilterSettings.builder()
                .rules("file:" + rulesFile("""
                        {"rules": [{"id": "all-items", "match": {"paths": ["/items/**"]}, "key": {"type": "constant"},
                                    "limits": [{"permits": 10, "period": "1m"}]}]}
                        """)).rulesReloadInterval(Duration.ZERO).build());
        JettyServer server = start(app(new RateLimitFeature()), servletFilter);

        HttpResponse<String> response = server.get("/items");

        assertThat(response.headers().firstValue("RateLimit-Policy"))
                .hasValue("\"all-items:10/1m\";q=10;w=60, \"items:3/1m\";q=3;w=60");
        assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
    }

    @ParameterizedTest
    @ValueSource(strings = {"header", "cookie", "query", "principal"})
    void annotation_requestLackingItsKey_isCountedAndGetsNoFurtherThanTheLimit(String key) throws Exception {
        JettyServer server = start(new ResourceConfig(Resources.Keyed.class).register(new RateLimitFeature()), null);

        assertThat(server.get("/keyed/" + key).statusCode()).isEqualTo(200);
        assertThat(server.get("/keyed/" + key).statusCode()).isEqualTo(200);
        assertThat(server.get("/keyed/" + key).statusCode()).as("without the " + key + " key").isEqualTo(429);
    }

    @Test
    void autoDiscovered_withoutRegistration_limitsAnnotatedResources() throws Exception {
        JettyServer server = start(app(null), null);

        for (int i = 0; i < 3; i++) {
            assertThat(server.get("/items").statusCode()).isEqualTo(200);
        }
        assertThat(server.get("/items").statusCode()).isEqualTo(429);
    }

    @Test
    void withoutServletContainer_clientsShareTheUnknownAddress_andAreLimited() throws Exception {
        // Jersey on its own: no servlet request to read a client's address from.
        ApplicationHandler jersey = new ApplicationHandler(app(new RateLimitFeature()));

        List<String> remaining = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ContainerResponse passed = get(jersey, "items");
            assertThat(passed.getStatus()).isEqualTo(200);
            remaining.add(passed.getHeaderString("X-RateLimit-Remaining"));
        }
        assertThat(remaining).containsExactly("2", "1", "0");
        assertThat(get(jersey, "items").getStatus()).isEqualTo(429);
    }

    private static ContainerResponse get(ApplicationHandler jersey, String path) throws Exception {
        URI base = URI.create("http://localhost/");
        return jersey.apply(new ContainerRequest(base, base.resolve(path), "GET", null, new MapPropertiesDelegate(),
                jersey.getConfiguration())).get();
    }

    @Test
    void annotationMistake_failsTheDeployment_namingTheResourceMethod() {
        ResourceConfig app = new ResourceConfig(Resources.Broken.class).register(new RateLimitFeature());

        assertThatThrownBy(() -> new ApplicationHandler(app))
                .hasStackTraceContaining("dev.sluice.jersey.Resources$Broken#get")
                .hasStackTraceContaining("period: expected a duration");
    }
}
