package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.annotation.RateLimited;
import dev.sluice.engine.Evaluation;
import dev.sluice.http.HeaderStyle;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.metrics.MicrometerDecisionMetrics;
import dev.sluice.rules.AnnotationRules;
import dev.sluice.store.CounterStore;
import dev.sluice.store.CounterStores;
import dev.sluice.store.DownStore;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import dev.sluice.store.RejectionCachingStore;
import dev.sluice.store.StoreHealth;
import dev.sluice.store.UnresponsiveStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.DispatcherType;
import java.lang.reflect.Method;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The filter on a real Jetty 12, asked over real HTTP. */
class RateLimitFilterTest {

    private static final String PER_IP = """
            {"rules": [{"id": "per-ip", "match": {"paths": ["/api/**"]}, "key": {"type": "ip"},
                        "limits": [{"permits": 3, "period": "1m"}]}]}
            """;

    @TempDir
    Path dir;

    @AutoClose
    private final JettyServers servers = new JettyServers();

    /** The filter of the context {@link #context} made last. */
    private RateLimitFilter filter;

    /** A context at {@code contextPath} with the filter on {@code rulesJson} in front of {@link EchoServlet}. */
    private ServletContextHandler context(String contextPath, String rulesJson,
                                          UnaryOperator<FilterSettings.Builder> settings) throws Exception {
        Path rules = Files.writeString(Files.createTempFile(dir, "rules", ".json"), rulesJson);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.setContextPath(contextPath);
        FilterSettings filterSettings = settings.apply(FilterSettings.builder()
                .rules("file:" + rules)
                .rulesReloadInterval(Duration.ZERO)).build();
        FilterHolder stamp = new FilterHolder(EchoServlet.STAMP_ARRIVAL);
        stamp.setAsyncSupported(true);
        context.addFilter(stamp, "/*", EnumSet.of(DispatcherType.REQUEST));
        filter = new RateLimitFilter(filterSettings);
        FilterHolder holder = new FilterHolder(filter);
        holder.setAsyncSupported(true);
        context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC,
                DispatcherType.FORWARD, DispatcherType.INCLUDE, DispatcherType.ERROR));
        ServletHolder servlet = new ServletHolder(new EchoServlet());
        servlet.setAsyncSupported(true);
        context.addServlet(servlet, "/*");
        return context;
    }

    private JettyServer start(String rulesJson, UnaryOperator<FilterSettings.Builder> settings) throws Exception {
        JettyServer server = JettyServer.start(50, context("/", rulesJson, settings));
        servers.add(server);
        return server;
    }

    @Test
    void filter_metricsSinkThrows_stillRejectsOverTheLimit() throws Exception {
        DecisionMetrics broken = new DecisionMetrics() {
            @Override
            public void recorded(Evaluation evaluation, long decisionNanos) {
                throw new IllegalStateException("metrics backend down");
            }

            @Override
            public void storeFailed(String ruleId) {
                throw new IllegalStateException("metrics backend down");
            }
        };
        JettyServer server = start(PER_IP, s -> s.metrics(broken));

        ResponseContract.assertThreePerMinuteThenRejected(server, "/api/items", "per-ip:3/1m");
    }

    @Test
    void filter_sequenceOfRequests_sendsExactHeaderValues() throws Exception {
        JettyServer server = start(PER_IP, s -> s);

        ResponseContract.assertThreePerMinuteThenRejected(server, "/api/items", "per-ip:3/1m");

        assertThat(server.get("/other").headers().firstValue("RateLimit")).as("no rule, no headers").isEmpty();
    }

    @Test
    void filter_overLimit_answersWithAProblemDocument() throws Exception {
        JettyServer server = start(PER_IP, s -> s);
        for (int i = 0; i < 3; i++) {
            server.get("/api/items");
        }

        HttpResponse<String> rejected = server.get("/api/items");

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(rejected.body()).isEqualTo("{\"type\":\"https://sluice.dev/problems/rate-limited\","
                + "\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Rate limit 'per-ip:3/1m' exceeded. Retry in 20 seconds.\","
                + "\"policies\":[\"per-ip:3/1m\"],\"violated-policies\":[\"per-ip:3/1m\"],\"retryAfter\":20}");
    }

    @Test
    void filter_ruleResponse_replacesStatusAndDetail() throws Exception {
        JettyServer server = start("""
                {"rules": [{"id": "quota", "match": {"paths": ["/**"]}, "key": {"type": "constant"},
                            "limits": [{"permits": 1, "period": "1h"}],
                            "response": {"status": 503, "message": "Export quota used up"}}]}
                """, s -> s);
        server.get("/export");
        HttpResponse<String> rejected = server.get("/export");
        assertThat(rejected.statusCode()).isEqualTo(503);
        assertThat(rejected.body()).contains("\"detail\":\"Export quota used up\"");
    }

    @Test
    void filter_headerStyle_choosesTheFields() throws Exception {
        JettyServer server = start(PER_IP, s -> s.headerStyle(HeaderStyle.LEGACY));
        HttpResponse<String> response = server.get("/api/items");
        assertThat(response.headers().map()).containsKey("x-ratelimit-remaining").doesNotContainKey("ratelimit");
    }

    @Test
    void filter_shadowRule_countsButNeverChangesTheResponse() throws Exception {
        JettyServer server = start("""
                {"rules": [{"id": "trial", "match": {"paths": ["/**"]}, "limits": [{"permits": 1, "period": "1h"}],
                            "mode": "shadow"}]}
                """, s -> s);
        HttpResponse<String> first = server.get("/api/items");
        HttpResponse<String> second = server.get("/api/items");

        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.headers().map()).doesNotContainKeys("ratelimit", "ratelimit-policy", "x-ratelimit-limit",
                "retry-after");
        assertThat(first.body()).contains("shadowRejected=false");
        assertThat(second.body()).contains("shadowRejected=true");
    }

    @Test
    void filter_trustedProxy_countsTheForwardedClient() throws Exception {
        JettyServer server = start(PER_IP, s -> s.trustedProxies(List.of("127.0.0.0/8")));
        for (int i = 0; i < 3; i++) {
            assertThat(server.get("/api/items", "X-Forwarded-For", "203.0.113.5").statusCode()).isEqualTo(200);
        }
        assertThat(server.get("/api/items", "X-Forwarded-For", "203.0.113.5").statusCode()).isEqualTo(429);
        assertThat(server.get("/api/items", "X-Forwarded-For", "203.0.113.6").statusCode()).isEqualTo(200);
        // A client claiming to be forwarded by a proxy it is not: the proxy's own entry is the right-most untrusted.
        assertThat(server.get("/api/items", "X-Forwarded-For", "203.0.113.6, 198.51.100.9").statusCode())
                .isEqualTo(200);
    }

    @Test
    void filter_untrustedPeerSendingForwardedFor_isCountedByItsSocketAddress() throws Exception {
        JettyServer server = start(PER_IP, s -> s);
        for (int i = 0; i < 3; i++) {
            server.get("/api/items", "X-Forwarded-For", "203.0.113." + i);
        }
        assertThat(server.get("/api/items", "X-Forwarded-For", "198.51.100.77").statusCode()).isEqualTo(429);
    }

    @Test
    void filter_forwardAndInclude_countTheRequestOnce() throws Exception {
        JettyServer server = start(PER_IP, s -> s);
        HttpResponse<String> forwarded = server.get("/api/forward/api/items");
        assertThat(forwarded.statusCode()).isEqualTo(200);
        assertThat(forwarded.headers().firstValue("X-RateLimit-Remaining")).hasValue("2");
        HttpResponse<String> included = server.get("/api/include/api/items");
        assertThat(included.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
    }

    @Test
    void filter_twoApplicationsInOneJvm_keepSeparateCounters() throws Exception {
        String tight = PER_IP.replace("\"permits\": 3", "\"permits\": 1");
        JettyServer server = JettyServer.start(50, context("/a", tight, s -> s), context("/b", PER_IP, s -> s));
        servers.add(server);

        assertThat(server.get("/a/api/x").statusCode()).isEqualTo(200);
        assertThat(server.get("/a/api/x").statusCode()).isEqualTo(429);
        assertThat(server.get("/b/api/x").statusCode()).isEqualTo(200);
        assertThat(server.get("/b/api/x").headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
    }

    @Test
    void filter_delayMode_holdsRequestsForTheirSlotsWithoutHoldingThreads() throws Exception {
        // 200 requests queue behind one leaky bucket draining one every 20 ms, on a Jetty of 20 threads.
        JettyServer server = JettyServer.start(20, context("/", """
                {"rules": [{"id": "queue", "match": {"paths": ["/queued/**"]}, "key": {"type": "constant"},
                            "algorithm": "leaky_bucket", "limits": [{"permits": 50, "period": "1s", "capacity": 250}],
                            "maxDelay": "10s"}]}
                """, s -> s));
        servers.add(server);

        List<CompletableFuture<HttpResponse<String>>> queued = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            queued.add(server.client().sendAsync(HttpRequest.newBuilder(server.uri("/queued/" + i)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        // While the queue drains (4 s), the rest of the application is served.
        HttpResponse<String> meanwhile = server.get("/health");
        boolean queueStillDraining = queued.stream().anyMatch(future -> !future.isDone());

        List<HttpResponse<String>> responses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> future : queued) {
            responses.add(future.get(60, TimeUnit.SECONDS));
        }
        assertThat(meanwhile.statusCode()).isEqualTo(200);
        assertThat(queueStillDraining).as("/health answered while delayed requests were waiting").isTrue();
        assertThat(responses).allSatisfy(response -> assertThat(response.statusCode()).isEqualTo(200));
        List<Echo> echoes = responses.stream().map(response -> Echo.of(response.body())).toList();
        assertThat(echoes.stream().filter(echo -> echo.delay() > 0).count()).as("delayed").isGreaterThan(190);
        assertThat(echoes).allSatisfy(echo -> assertThat(echo.at()).as("held until its slot")
                .isGreaterThanOrEqualTo(echo.slot()));
        // Slot order: no request is served before one with an earlier slot, unless both slots had already come (the
        // scheduler then dispatched both and the container ran them side by side, in either order). A slot is
        // estimated as the arrival, stamped just before Sluice decides, plus the granted delay.
        List<Echo> bySlot = echoes.stream().sorted(Comparator.comparingLong(Echo::slot)).toList();
        for (int i = 1; i < bySlot.size(); i++) {
            Echo earlier = bySlot.get(i - 1);
            Echo later = bySlot.get(i);
            if (later.served() < earlier.served()) {
                assertThat(later.slot()).as("%s served before %s, whose slot is earlier", later, earlier)
                        .isLessThanOrEqualTo(earlier.at());
            }
        }
    }

    /** What {@link EchoServlet} answered. */
    private record Echo(long served, long delay, long slot, long at) {
        static Echo of(String body) {
            String[] fields = body.split(" ");
            return new Echo(value(fields[0]), value(fields[1]), value(fields[2]), value(fields[3]));
        }

        private static long value(String field) {
            return Long.parseLong(field.substring(field.indexOf('=') + 1));
        }
    }

    @Test
    void filter_withMicrometer_countsEveryOutcomePerRuleWithoutKeys() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JettyServer server = start("""
                {"rules": [
                  {"id": "api", "match": {"paths": ["/api/**"]}, "key": {"type": "header", "name": "X-Api-Key"},
                   "limits": [{"permits": 2, "period": "1h"}]},
                  {"id": "trial", "match": {"paths": ["/api/**"]}, "mode": "shadow",
                   "limits": [{"permits": 1, "period": "1h"}]},
                  {"id": "queue", "match": {"paths": ["/slow"]}, "key": {"type": "constant"},
                   "algorithm": "leaky_bucket", "limits": [{"permits": 10, "period": "1s", "capacity": 5}],
                   "maxDelay": "1s"}]}
                """, s -> s.metrics(new MicrometerDecisionMetrics(registry)));
        for (int i = 0; i < 3; i++) {
            server.get("/api/items", "X-Api-Key", "secret-key-42");
        }
        server.get("/slow");
        server.get("/slow");

        assertThat(count(registry, "api", "allowed")).isEqualTo(2);
        assertThat(count(registry, "api", "rejected")).isEqualTo(1);
        assertThat(count(registry, "trial", "allowed")).isEqualTo(1);
        assertThat(count(registry, "trial", "shadow-rejected")).isEqualTo(2);
        assertThat(count(registry, "queue", "allowed")).isEqualTo(1);
        assertThat(count(registry, "queue", "delayed")).isEqualTo(1);
        assertThat(registry.get(MicrometerDecisionMetrics.DECISION_TIME).timer().count()).isEqualTo(5);
        assertThat(registry.getMeters()).allSatisfy(meter -> assertThat(meter.getId().getTags().toString())
                .doesNotContain("secret-key-42").doesNotContain("127.0.0.1"));
    }

    private static double count(SimpleMeterRegistry registry, String rule, String outcome) {
        return registry.get(MicrometerDecisionMetrics.DECISIONS).tag("rule", rule).tag("outcome", outcome).counter()
                .count();
    }

    @Test
    void init_invalidRulesFile_failsDeploymentNamingFileLineAndField() throws Exception {
        Path rules = Files.writeString(dir.resolve("broken.json"), """
                {"rules": [{"id": "x", "match": {"paths": ["/**"]},
                            "limits": [{"permits": 5, "period": "5 minutes"}]}]}
                """);
        RateLimitFilter filter = new RateLimitFilter(FilterSettings.builder().rules("file:" + rules).build());
        ServletContextHandler context = new ServletContextHandler();
        context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new EchoServlet()), "/*");

        assertThatThrownBy(() -> servers.add(JettyServer.start(20, context)))
                .hasStackTraceContaining("broken.json:2:")
                .hasStackTraceContaining("$.rules[0].limits[0].period")
                .hasStackTraceContaining("got \"5 minutes\"");
    }

    @Test
    void settings_badInitParam_namesTheParamAndTheExpectedForm() {
        assertThatThrownBy(() -> FilterSettings.fromInitParameters(
                name -> name.equals("store-timeout") ? "fast" : null))
                .hasMessage("init-param 'store-timeout': expected a duration such as 100ms, 5s or PT1M, got 'fast'");
        assertThatThrownBy(() -> FilterSettings.fromInitParameters(name -> name.equals("metrics") ? "statsd" : null))
                .hasMessage("init-param 'metrics': expected one of none, micrometer, got 'statsd'");
        assertThatThrownBy(() -> FilterSettings.fromInitParameters(
                name -> name.equals("rejection-cache") ? "-1" : null))
                .hasMessage("init-param 'rejection-cache': expected a number of rejections, 0 for none, got '-1'");
        // An unknown store name fails when the filter starts (StoreProviderFilterTest); a bad hazelcast-port when
        // the Hazelcast provider reads it (sluice-hazelcast's StoreProvidersTest).
    }

    @Test
    void settings_initParams_areEveryNameFromInitParametersReads() {
        List<String> read = new ArrayList<>();
        FilterSettings.fromInitParameters(name -> {
            read.add(name);
            return null;
        });

        assertThat(read).containsExactlyElementsOf(FilterSettings.INIT_PARAMS);
    }

    @Test
    void settings_ipv6Prefix_readFromItsInitParamAndBounded() {
        assertThat(FilterSettings.fromInitParameters(name -> name.equals("ipv6-prefix") ? " 56 " : null).ipv6Prefix())
                .hasValue(56);
        assertThat(FilterSettings.fromInitParameters(name -> null).ipv6Prefix()).as("the rules file's").isEmpty();
        assertThatThrownBy(() -> FilterSettings.fromInitParameters(name -> name.equals("ipv6-prefix") ? "129" : null))
                .hasMessage("init-param 'ipv6-prefix': expected a prefix length from 1 to 128, got '129'");
    }

    @Test
    void settings_failurePolicyUnset_isLocalSoALimitKeepsHolding() {
        assertThat(FilterSettings.builder().build().failurePolicy()).isEqualTo(FailurePolicyStore.OnFailure.LOCAL);
        assertThat(FilterSettings.fromInitParameters(name -> null).failurePolicy())
                .isEqualTo(FailurePolicyStore.OnFailure.LOCAL);
        assertThat(FilterSettings.fromInitParameters(name -> name.equals("failure-policy") ? "allow" : null)
                .failurePolicy()).isEqualTo(FailurePolicyStore.OnFailure.ALLOW);
    }

    @Test
    void settings_storeAndStoreProvider_areExclusive() {
        assertThatThrownBy(() -> FilterSettings.builder().store(new LocalCounterStore())
                .storeProvider("local", name -> null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("store and storeProvider both given: give one");
    }

    @Test
    void settings_maxKeysUnset_isTheLocalStoresDefault() {
        assertThat(FilterSettings.builder().build().maxKeys()).isEqualTo(LocalCounterStore.DEFAULT_MAX_KEYS);
    }

    @Test
    void filter_givenStoreDownWithRejectPolicyBesideIt_refusesEveryRequestAsLimiterUnavailable() throws Exception {
        DownStore down = new DownStore();
        JettyServer server = start(PER_IP, s -> s.store(down).failurePolicy(FailurePolicyStore.OnFailure.REJECT));

        for (int i = 0; i < 5; i++) {
            HttpResponse<String> refused = server.get("/api/items");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.body()).contains("limiter-unavailable");
        }
        assertThat(down.calls).hasValue(5);
        assertThat(filter.health().lastMinute().total()).isEqualTo(5);
    }

    @Test
    void filter_givenStoreDownWithLocalPolicyBesideIt_limitsOnThisInstance() throws Exception {
        JettyServer server = start(PER_IP, s -> s.store(new DownStore())
                .failurePolicy(FailurePolicyStore.OnFailure.LOCAL));

        for (int i = 0; i < 3; i++) {
            assertThat(server.get("/api/items").statusCode()).isEqualTo(200);
        }
        assertThat(server.get("/api/items").statusCode()).isEqualTo(429);
    }

    @Test
    void filter_givenStoreSilentBeyondTheTimeoutBesideIt_decidesByTheFailurePolicy() throws Exception {
        UnresponsiveStore silent = new UnresponsiveStore();
        JettyServer server = start(PER_IP, s -> s.store(silent).storeTimeout(Duration.ofMillis(1))
                .failurePolicy(FailurePolicyStore.OnFailure.REJECT));

        assertThat(server.get("/api/items").statusCode()).isEqualTo(503);
        assertThat(filter.health().lastMinute().total()).isEqualTo(1);
    }

    @Test
    void filter_givenStoreAlone_isUsedAsItIs() throws Exception {
        CounterStore given = new LocalCounterStore();
        start(PER_IP, s -> s.store(given));

        assertThat(filter.store()).isSameAs(given);
    }

    @Test
    void filter_givenRemoteStoreAlone_boundByTheFiltersDefaultsAndTheStatusSaysSo() throws Exception {
        DownStore down = new DownStore(new StoreHealth("test-remote", 2, StoreHealth.Failures.NONE,
                StoreHealth.Cluster.NONE));
        JettyServer server = start(PER_IP, s -> s.store(down));

        for (int i = 0; i < 3; i++) {
            assertThat(server.get("/api/items").statusCode()).as("counted locally while the store fails")
                    .isEqualTo(200);
        }
        assertThat(server.get("/api/items").statusCode()).isEqualTo(429);
        assertThat(filter.store()).isInstanceOf(FailurePolicyStore.class);
        assertThat(filter.status().startLine()).contains("store test-remote (2 members)",
                "failure policy local, timeout 100ms");
        assertThat(filter.health().lastMinute().failed()).isEqualTo(4);
    }

    @Test
    void filter_annotationRulesWithRoutes_limitTheRoutedMethodKeyedByItsPathParameter() throws Exception {
        Method item = Items.class.getMethod("item", String.class);
        RequestRoutes routes = request -> request.getRequestURI().startsWith("/items/")
                ? Optional.of(new RequestRoutes.Route(item, Map.of("id", request.getRequestURI().substring(7))))
                : Optional.empty();
        JettyServer server = start(PER_IP, s -> s.annotated(AnnotationRules.forClass(Items.class), routes));

        assertThat(server.get("/items/1").statusCode()).isEqualTo(200);
        assertThat(server.get("/items/1").statusCode()).isEqualTo(429);
        assertThat(server.get("/items/2").statusCode()).as("another path parameter").isEqualTo(200);
        assertThat(server.get("/other").headers().firstValue("RateLimit")).as("routed nowhere").isEmpty();
        assertThat(filter.status().rulesSource()).startsWith("annotations and file:");
    }

    /** A handler class of a framework the filter knows nothing of, routed by {@link RequestRoutes}. */
    public static final class Items {
        @RateLimited(permits = 1, period = "1m", key = "path:id")
        public String item(String id) {
            return id;
        }
    }

    @Test
    void start_beforeTheContainerInits_failsWithTheRulesProblemThenInitOnlyPublishes() throws Exception {
        RateLimitFilter broken = new RateLimitFilter(FilterSettings.builder().rules("classpath:no-such-rules.json")
                .build());
        assertThatThrownBy(() -> broken.start("early")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no resource at classpath:no-such-rules.json");

        RateLimitFilter started = new RateLimitFilter(FilterSettings.builder().build());
        started.start("early");
        assertThat(started.status().component()).isEqualTo("Sluice filter 'early'");
        assertThatThrownBy(() -> started.start("again")).isInstanceOf(IllegalStateException.class);
        started.destroy();
        started.destroy();
    }

    @Test
    void storeSettingsGivenAsAMap_unknownNameRefusedAtStartNamingTheNearest() {
        RateLimitFilter misspelt = new RateLimitFilter(FilterSettings.builder()
                .storeProvider("hazelcast-client", Map.of("hazelcast-membrs", "127.0.0.1:5701")).build());

        assertThatThrownBy(() -> misspelt.start("misspelt")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("store setting 'hazelcast-membrs' is not a setting of store"
                        + " 'hazelcast-client'; did you mean 'hazelcast-members'?");
    }

    @Test
    void destroy_givenStoreBoundByTheFilter_leavesTheGivenStoreOpen() throws Exception {
        DownStore down = new DownStore();
        ServletContextHandler context = context("/", PER_IP, s -> s.store(down)
                .failurePolicy(FailurePolicyStore.OnFailure.REJECT));
        try (JettyServer server = JettyServer.start(50, context)) {
            assertThat(server.get("/api/items").statusCode()).isEqualTo(503);
        }

        assertThat(down.closed).isFalse();
    }

    @Test
    void settings_storeBehindAFailurePolicyWithAFailurePolicyBesideIt_isRefusedSayingHowToCompose() {
        CounterStore composed = CounterStores.of(new DownStore()).build();

        assertThatThrownBy(() -> FilterSettings.builder().store(composed)
                .failurePolicy(FailurePolicyStore.OnFailure.REJECT).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already behind a failure policy")
                .hasMessageContaining("CounterStores.of(store)");
    }

    @Test
    void filter_storeDownWithRejectPolicy_answers503LimiterUnavailableAndPublishesHealth() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CounterStore down = FailurePolicyStore.rejecting(new DownStore(), Duration.ofMillis(50));
        ServletContextHandler context = context("/", PER_IP,
                s -> s.store(down).metrics(new MicrometerDecisionMetrics(registry)));
        JettyServer server = JettyServer.start(50, context);
        servers.add(server);

        HttpResponse<String> refused = server.get("/api/items");

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(refused.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
        assertThat(refused.headers().firstValue("RateLimit")).isEmpty();
        assertThat(refused.body()).contains("\"type\":\"https://sluice.dev/problems/limiter-unavailable\"",
                "\"policies\":[]").doesNotContain("exceeded");
        @SuppressWarnings("unchecked")
        Supplier<StoreHealth> health = (Supplier<StoreHealth>) context.getServletContext()
                .getAttribute(RateLimitFilter.HEALTH_ATTRIBUTE);
        assertThat(health.get().lastMinute().failed()).isEqualTo(1);
        assertThat(filter.health().lastMinute().total()).isEqualTo(1);
        assertThat(registry.get(MicrometerDecisionMetrics.STORE + ".failed").tag("mode", "local").gauge().value())
                .isEqualTo(1);
    }

    @Test
    void destroy_withMicrometer_removesTheStoreGaugesSoAFreshFilterPublishesItsOwnStore() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerDecisionMetrics metrics = new MicrometerDecisionMetrics(registry);
        CounterStore firstStore = FailurePolicyStore.rejecting(new DownStore(), Duration.ofMillis(50));
        ServletContextHandler firstContext = context("/", PER_IP, s -> s.store(firstStore).metrics(metrics));
        try (JettyServer first = JettyServer.start(50, firstContext)) {
            first.get("/api/items");
            assertThat(storeGauges(registry)).hasSize(11);
            assertThat(failedGauge(registry)).isEqualTo(1);
        }

        assertThat(storeGauges(registry)).as("after the filter's destroy").isEmpty();

        // Redeployed: same registry and store mode, a fresh store that has failed nothing.
        start(PER_IP, s -> s.store(FailurePolicyStore.rejecting(new DownStore(), Duration.ofMillis(50)))
                .metrics(metrics));
        assertThat(storeGauges(registry)).hasSize(11);
        assertThat(failedGauge(registry)).as("the new store's, not the old one's").isZero();
    }

    private static List<String> storeGauges(SimpleMeterRegistry registry) {
        return registry.getMeters().stream().map(meter -> meter.getId().getName())
                .filter(name -> name.startsWith(MicrometerDecisionMetrics.STORE + ".")).toList();
    }

    private static double failedGauge(SimpleMeterRegistry registry) {
        return registry.get(MicrometerDecisionMetrics.STORE + ".failed").tag("mode", "local").gauge().value();
    }

    @Test
    void filter_storeDownWithAllowPolicy_letsRequestsThroughWithoutInventedRemainingPermits() throws Exception {
        CounterStore down = FailurePolicyStore.allowing(new DownStore(), Duration.ofMillis(50));
        JettyServer server = start(PER_IP, s -> s.store(down));

        HttpResponse<String> passed = server.get("/api/items");

        assertThat(passed.statusCode()).isEqualTo(200);
        assertThat(passed.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
        assertThat(passed.headers().firstValue("RateLimit")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"header\", \"name\": \"X-Api-Key", "cookie\", \"name\": \"session",
            "query\", \"name\": \"api_key", "principal"})
    void filter_requestLackingItsKey_isCountedByItsAddressAndGetsNoFurtherThanTheLimit(String key) throws Exception {
        JettyServer server = start(("{\"rules\": [{\"id\": \"keyed\", \"match\": {\"paths\": [\"/api/**\"]},"
                + " \"key\": {\"type\": \"%s\"}, \"limits\": [{\"permits\": 2, \"period\": \"1m\"}]}]}")
                .formatted(key), s -> s);

        assertThat(server.get("/api/export").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/export").statusCode()).isEqualTo(200);
        assertThat(server.get("/api/export").statusCode()).as("without the key " + key).isEqualTo(429);
    }

    @Test
    void filter_givenStore_countsInItAsItIsAndLeavesItOpen() throws Exception {
        ManualTimeSource time = new ManualTimeSource();
        CounterStore given = new RejectionCachingStore(new LocalCounterStore(time, 100), time, 100);
        JettyServer server = start(PER_IP, s -> s.store(given));

        assertThat(filter.store()).isSameAs(given);
        for (int i = 0; i < 3; i++) {
            assertThat(server.get("/api/x").statusCode()).isEqualTo(200);
        }
        assertThat(server.get("/api/x").statusCode()).isEqualTo(429);
        server.close();
        RateLimiter limiter = RateLimiter.builder().store(given).timeSource(time)
                .policy(Algorithm.FIXED_WINDOW, Limit.of(1, Duration.ofMinutes(1))).build();
        assertThat(limiter.tryAcquire("after-the-filter").allowed()).as("still open").isTrue();
    }

    @Test
    void filter_delayModeOnAManualClock_holdsEachRequestForItsExactSlot() throws Exception {
        // One slot every 10 ms, three queued at most; the clock stands still unless the test moves it.
        ManualTimeSource time = new ManualTimeSource();
        JettyServer server = start("""
                {"rules": [{"id": "queue", "match": {"paths": ["/queued/**"]}, "key": {"type": "constant"},
                            "algorithm": "leaky_bucket", "limits": [{"permits": 100, "period": "1s", "capacity": 3}],
                            "maxDelay": "1s"}]}
                """, s -> s.timeSource(time));

        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> response = server.get("/queued/" + i);
            assertThat(response.statusCode()).isEqualTo(200);
            delays.add(Echo.of(response.body()).delay());
        }
        HttpResponse<String> full = server.get("/queued/full");
        time.advance(Duration.ofMillis(30));
        HttpResponse<String> drained = server.get("/queued/drained");

        assertThat(delays).containsExactly(0L, 10_000_000L, 20_000_000L);
        assertThat(full.statusCode()).isEqualTo(429);
        assertThat(full.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(drained.statusCode()).isEqualTo(200);
        assertThat(Echo.of(drained.body()).delay()).isZero();
    }
}
