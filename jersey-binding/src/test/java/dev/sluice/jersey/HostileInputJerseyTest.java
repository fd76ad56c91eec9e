package dev.sluice.jersey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.servlet.FilterSettings;
import dev.sluice.servlet.HostileInput.Outcome;
import dev.sluice.servlet.HostileInput;
import dev.sluice.servlet.JettyServer;
import dev.sluice.servlet.JettyServers;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.servlet.RawHttp2;
import jakarta.servlet.DispatcherType;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.filter.HttpMethodOverrideFilter;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile requests, sent as raw HTTP/1.1 where a well-behaved client would refuse to, through the Jersey binding on a
 * real Jersey application on a real Jetty 12: the same checks as the servlet filter's ({@link HostileInput}). Proves
 * that no spelling of the path, nor of the context path, reaches the login resource uncounted, whether its limit is
 * its {@code @RateLimited} annotation (matched by resource method) or a rules file's rule (matched by path); and that
 * forwarding headers from an untrusted peer never change the key.
 */
class HostileInputJerseyTest {

    private static final String LOGIN_RULE = """
            {"rules": [{"id": "login", "match": {"paths": ["%s"]}, "key": {"type": "ip"},
                        "limits": [{"permits": %d, "period": "1h"}]}]}
            """.formatted(HostileInput.LOGIN, HostileInput.LOGIN_LIMIT);

    @TempDir
    Path dir;

    @AutoClose
    private final JettyServers servers = new JettyServers();

    /** {@code login} in a Jersey application at {@code contextPath}, limited by {@code feature}. */
    private JettyServer start(String contextPath, Resources.Login login, RateLimitFeature feature) throws Exception {
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.setContextPath(contextPath);
        JerseyServlet.deploy(context, new ResourceConfig().register(login).register(feature));
        JettyServer server = JettyServer.start(20, context);
        servers.add(server);
        return server;
    }

    @ParameterizedTest(name = "limited by {0}")
    @ValueSource(strings = {"annotation", "rules file"})
    void pathVariants_rootContext_neverReachTheResourceUncounted(String limitedBy) throws Exception {
        Resources.Login login = login(limitedBy);
        JettyServer server = start("/", login, feature(limitedBy));

        Map<String, Outcome> outcomes = HostileInput.assertPathVariantsCountedOrTurnedAway(server, "", "",
                login::served);

        // Jersey routes path parameters and a trailing slash to /api/login, and they are counted; it does not route
        // dot segments or percent-encoded letters, nor another letter case (404, never served).
        for (String routed : List.of("/api;x=1/login;jsessionid=1", "/api/login/", "/api/login?x=1")) {
            assertThat(outcomes).containsEntry(routed, new Outcome(200, true));
        }
        for (String notFound : List.of("/api/./login", "/api/%6Cogin", "/API/LOGIN")) {
            assertThat(outcomes).containsEntry(notFound, new Outcome(404, false));
        }
    }

    @ParameterizedTest(name = "limited by {0}, asked as {1}")
    @CsvSource({"annotation, /app", "rules file, /app", "annotation, /%61pp", "rules file, /%61pp",
            "rules file, /x/../app", "rules file, /app/../app", "rules file, /app;v=1"})
    void pathVariants_contextPathSpelledOtherwise_neverReachTheResourceUncounted(String limitedBy,
                                                                                 String contextSpelling)
            throws Exception {
        Resources.Login login = login(limitedBy);
        JettyServer server = start("/app", login, feature(limitedBy));

        HostileInput.assertPathVariantsCountedOrTurnedAway(server, "/app", contextSpelling, login::served);
    }

    private static Resources.Login login(String limitedBy) {
        return limitedBy.equals("annotation") ? new Resources.LimitedLogin() : new Resources.Login();
    }

    private RateLimitFeature feature(String limitedBy) throws Exception {
        return limitedBy.equals("annotation") ? new RateLimitFeature() : RateLimitFeature.builder()
                .rulesFile(Files.writeString(dir.resolve("rules.json"), LOGIN_RULE))
                .rulesReloadInterval(Duration.ZERO).build();
    }

    @Test
    void hostRules_everySpellingOfTheHostOverHttp1AndHttp2_neverReachesTheResourceUncounted() throws Exception {
        Resources.Login login = new Resources.Login();
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        JerseyServlet.deploy(context, new ResourceConfig().register(login).register(RateLimitFeature.builder()
                .rulesFile(Files.writeString(dir.resolve("rules.json"), HostileInput.HOST_RULES))
                .rulesReloadInterval(Duration.ZERO).build()));
        JettyServer server = JettyServer.start(20, RawHttp2.SPOKEN, context);
        servers.add(server);

        HostileInput.assertNoHostSpellingEscapesTheHostRules(server, login::served, true);
    }

    /** The login resource with a DELETE beside its GET (a HEAD runs the GET), counting what it serves. */
    @jakarta.ws.rs.Path(HostileInput.LOGIN)
    public static class DeletableLogin {
        private final AtomicInteger served = new AtomicInteger();

        @GET
        public String get() {
            served.incrementAndGet();
            return "got";
        }

        @DELETE
        public String delete() {
            served.incrementAndGet();
            return "deleted";
        }

        int served() {
            return served.get();
        }
    }

    /**
     * Jersey's method-override filter turns a POST into the DELETE it names before matching; the binding, after
     * matching, sees the DELETE. The servlet filter in front of Jersey sees the POST, and counts it by the rule of the
     * method it names all the same.
     */
    @ParameterizedTest(name = "limited by the {0}")
    @ValueSource(strings = {"binding", "servlet filter"})
    void methodRules_headForAGetRuleAndAPostOverridden_areCountedByTheRuleOfTheirMethod(String limitedBy)
            throws Exception {
        Path rules = Files.writeString(dir.resolve("rules.json"), HostileInput.METHOD_RULES);
        DeletableLogin login = new DeletableLogin();
        ResourceConfig app = new ResourceConfig().register(login).register(HttpMethodOverrideFilter.class);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        if (limitedBy.equals("binding")) {
            app.register(RateLimitFeature.builder().rulesFile(rules).rulesReloadInterval(Duration.ZERO).build());
        } else {
            context.addFilter(new FilterHolder(new RateLimitFilter(FilterSettings.builder().rules("file:" + rules)
                    .rulesReloadInterval(Duration.ZERO).build())), "/*", EnumSet.of(DispatcherType.REQUEST));
        }
        JerseyServlet.deploy(context, app);
        JettyServer server = JettyServer.start(20, context);
        servers.add(server);

        HostileInput.assertMethodsCountedAsRoutingRunsThem(server, login::served);
    }

    @Test
    void spoofedForwardingHeaders_untrustedPeer_keyStaysTheSocketAddress() throws Exception {
        Resources.LimitedLogin login = new Resources.LimitedLogin();
        JettyServer server = start("/", login, new RateLimitFeature());

        HostileInput.assertSpoofedForwardingIgnored(server, login::served);
    }
}
