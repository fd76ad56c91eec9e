package dev.sluice.servlet;

import static dev.sluice.servlet.HostileInput.LOGIN;
import static dev.sluice.servlet.HostileInput.LOGIN_LIMIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.servlet.HostileInput.Outcome;
import jakarta.servlet.DispatcherType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile requests, sent as raw HTTP/1.1 where a well-behaved client would refuse to, through the servlet filter on a
 * real Jetty 12 in front of a servlet mapped at exactly {@code /api/login}. Proves that no spelling of the path (nor
 * of the context path) reaches the servlet uncounted; that forwarding headers from an untrusted peer never change the
 * key, and that hostile ones from a trusted proxy (10,000 hops, a megabyte, garbage, IPv4-mapped IPv6) never fail a
 * request and key the right hop; that oversized headers and headers with CR, LF or control bytes are turned away by
 * Jetty without harming the filter; and that keys made of non-ASCII or huge header values stay bounded.
 */
class HostileInputFilterTest {

    /**
     * The login rule of {@link HostileInput}, and a second rule on the same path keyed by the API key header, which
     * requests without the header skip (so the address tests see the login rule's key alone).
     */
    private static final String RULES = """
            {"rules": [{"id": "login", "match": {"paths": ["%s"]}, "key": {"type": "ip"},
                        "limits": [{"permits": %d, "period": "1h"}]},
                       {"id": "api-key", "match": {"paths": ["%s"]}, "key": {"type": "header", "name": "X-Api-Key"},
                        "onMissingKey": "skip", "limits": [{"permits": 1000, "period": "1h"}]}]}
            """.formatted(LOGIN, LOGIN_LIMIT, LOGIN);

    /** Large enough for a 10,000-hop or a one-megabyte header to reach the filter. */
    private static final int HEADERS_OF_TWO_MEGABYTES = 2 << 20;

    private static final String MEGABYTE = "1".repeat(1 << 20);

    @TempDir
    Path dir;

    @AutoClose
    private final JettyServers servers = new JettyServers();
    private final EchoServlet login = new EchoServlet();

    /** The filter on {@link #RULES} in front of {@link #login}, mapped at exactly {@code /api/login}. */
    private JettyServer start(String contextPath, int requestHeaderSize, UnaryOperator<FilterSettings.Builder> settings)
            throws Exception {
        JettyServer server = JettyServer.start(20, requestHeaderSize, context(RULES, contextPath, settings));
        servers.add(server);
        return server;
    }

    /** The filter on {@code rules} in front of {@link #login} at the root, speaking HTTP/1.1 and HTTP/2. */
    private JettyServer start(String rules, UnaryOperator<FilterSettings.Builder> settings) throws Exception {
        JettyServer server = JettyServer.start(20, RawHttp2.SPOKEN, context(rules, "/", settings));
        servers.add(server);
        return server;
    }

    private ServletContextHandler context(String rulesText, String contextPath,
                                          UnaryOperator<FilterSettings.Builder> settings) throws Exception {
        Path rules = Files.writeString(Files.createTempFile(dir, "rules", ".json"), rulesText);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.setContextPath(contextPath);
        context.addFilter(new FilterHolder(new RateLimitFilter(settings.apply(FilterSettings.builder()
                .rules("file:" + rules).rulesReloadInterval(Duration.ZERO)).build())),
                "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(login, LOGIN);
        return context;
    }

    @Test
    void pathVariants_rootContext_neverReachTheServletUncounted() throws Exception {
        JettyServer server = start("/", JettyServer.DEFAULT_REQUEST_HEADER_SIZE, s -> s);

        Map<String, Outcome> outcomes = HostileInput.assertPathVariantsCountedOrTurnedAway(server, "", "",
                login::served);

        // The Servlet spec has the container route these to /api/login: each was admitted, and counted.
        for (String routed : List.of("/api;x=1/login;jsessionid=1", "/api/./login", "/api/x/../login",
                "/x/../api/login", "/api/%6Cogin", "/%61pi/login", "/api/log%69n;a=b", "/api/login?x=1")) {
            assertThat(outcomes).containsEntry(routed, new Outcome(200, true));
        }
        // Paths are case-sensitive, in the container as in the rules: another case is another resource, not found.
        // So is a name with an escaped ";" or "?" in it: the rules read it as the container does, not as syntax.
        for (String other : List.of("/API/LOGIN", "/Api/Login", "/api/login%3Bx=1", "/api/login%3F")) {
            assertThat(outcomes).containsEntry(other, new Outcome(404, false));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/app", "/%61pp", "/x/../app", "/app/../app", "/app/.", "/app;v=1"})
    void pathVariants_contextPathSpelledOtherwise_neverReachTheServletUncounted(String contextSpelling)
            throws Exception {
        JettyServer server = start("/app", JettyServer.DEFAULT_REQUEST_HEADER_SIZE, s -> s);

        Map<String, Outcome> outcomes = HostileInput.assertPathVariantsCountedOrTurnedAway(server, "/app",
                contextSpelling, login::served);

        assertThat(outcomes).containsEntry("/api;x=1/login;jsessionid=1", new Outcome(200, true))
                .containsEntry("/%61pi/login", new Outcome(200, true));
    }

    @Test
    void spoofedForwardingHeaders_untrustedPeer_keyStaysTheSocketAddress() throws Exception {
        JettyServer server = start("/", JettyServer.DEFAULT_REQUEST_HEADER_SIZE, s -> s);

        HostileInput.assertSpoofedForwardingIgnored(server, login::served);
    }

    @Test
    void hostRules_everySpellingOfTheHostOverHttp1AndHttp2_neverReachesTheServletUncounted() throws Exception {
        JettyServer server = start(HostileInput.HOST_RULES, s -> s);

        HostileInput.assertNoHostSpellingEscapesTheHostRules(server, login::served, true);
    }

    @Test
    void methodRules_headForAGetRuleAndAPostOverridden_areCountedByTheRuleOfTheirMethod() throws Exception {
        JettyServer server = start(HostileInput.METHOD_RULES, s -> s);

        HostileInput.assertMethodsCountedAsRoutingRunsThem(server, login::served);
    }

    @Test
    void trustedProxy_hostileForwardingHeaders_neverFailAndKeyTheRightHop() throws Exception {
        JettyServer server = start("/", HEADERS_OF_TWO_MEGABYTES, s -> s.trustedProxies(List.of("127.0.0.1")));
        String tenThousandHops = String.join(", ", Collections.nCopies(9_999, "203.0.113.66"));
        String tenThousandTrustedHops = String.join(",", Collections.nCopies(10_000, "127.0.0.1"));
        Map<String, String> keyByForwardedFor = Map.ofEntries(
                Map.entry(tenThousandHops + ", 198.51.100.7", "198.51.100.7"),
                // Beyond the hops examined, the nearest trusted proxy stands for the client.
                Map.entry("198.51.100.7, " + tenThousandTrustedHops, "127.0.0.1"),
                Map.entry(MEGABYTE, "127.0.0.1"),
                Map.entry("::ffff:10.0.0.1", "10.0.0.1"),
                Map.entry("[::FFFF:10.0.0.1]", "10.0.0.1"),
                Map.entry("2001:DB8:0:0:0:0:0:1", "2001:db8::/64"),
                // An entry with a port, as some load balancers write them, is its address.
                Map.entry("198.51.100.7:51234", "198.51.100.7"),
                Map.entry("[2001:db8::1]:443", "2001:db8::/64"),
                Map.entry("203.0.113.66, [198.51.100.8]:80", "198.51.100.8"),
                Map.entry("not-an-ip", "127.0.0.1"),
                Map.entry("999.1.1.1", "127.0.0.1"),
                Map.entry("010.0.0.1", "127.0.0.1"),
                Map.entry("evil.example", "127.0.0.1"),
                Map.entry("unknown, , ,", "127.0.0.1"),
                Map.entry("\"for=1.2.3.4\"", "127.0.0.1"),
                Map.entry("1.2.3.4\u00e9", "127.0.0.1"));

        for (Map.Entry<String, String> forwarded : keyByForwardedFor.entrySet()) {
            RawHttp.Response response = RawHttp.get(server, LOGIN, "X-Forwarded-For: " + forwarded.getKey());

            String shown = forwarded.getKey().length() > 40 ? forwarded.getKey().substring(0, 40) + "..."
                    : forwarded.getKey();
            assertThat(response.status()).as(shown).isEqualTo(200);
            assertThat(HostileInput.keysIn(response.body())).as(shown).isEqualTo(forwarded.getValue());
        }
        // One client, however its address is written, is one counter: 10.0.0.1 was counted twice above.
        RawHttp.Response plain = RawHttp.get(server, LOGIN, "X-Forwarded-For: 10.0.0.1");
        assertThat(plain.header("X-RateLimit-Remaining")).isEqualTo(Integer.toString(LOGIN_LIMIT - 3));
    }

    /** A rule keyed by the client's IP, with one IPv6 address exempt. */
    private static final String IPV6_RULES = """
            {"rules": [{"id": "login", "match": {"paths": ["%s"]}, "key": {"type": "ip"},
                        "limits": [{"permits": 2, "period": "1h"}], "exempt": {"addresses": ["2001:db8:e::1"]}}]}
            """.formatted(LOGIN);

    @Test
    void ipv6Clients_rotatingAddressesInTheirSlash64_shareOneKeyAndOneExemption() throws Exception {
        JettyServer server = start(IPV6_RULES, s -> s.trustedProxies(List.of("127.0.0.1")));

        List<Integer> rotating = new ArrayList<>();
        for (String address : List.of("2001:db8:1:2::1", "2001:db8:1:2:aaaa::2", "2001:db8:1:2:bbbb:cccc:dddd:3")) {
            rotating.add(RawHttp.get(server, LOGIN, "X-Forwarded-For: " + address).status());
        }
        RawHttp.Response otherNetwork = RawHttp.get(server, LOGIN, "X-Forwarded-For: 2001:db8:1:3::1");

        assertThat(rotating).as("one /64, one key").containsExactly(200, 200, 429);
        assertThat(HostileInput.keysIn(otherNetwork.body())).isEqualTo("2001:db8:1:3::/64");
        for (int i = 0; i < 3; i++) {
            RawHttp.Response exempt = RawHttp.get(server, LOGIN, "X-Forwarded-For: 2001:db8:e::" + (i + 2));
            assertThat(exempt.status()).as("the exempt address's /64").isEqualTo(200);
            assertThat(exempt.header("X-RateLimit-Remaining")).isNull();
        }
    }

    @Test
    void ipv6Prefix128_keysAndExemptsEachAddressAlone() throws Exception {
        JettyServer server = start(IPV6_RULES, s -> s.trustedProxies(List.of("127.0.0.1")).ipv6Prefix(128));

        for (String address : List.of("2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2::3")) {
            RawHttp.Response response = RawHttp.get(server, LOGIN, "X-Forwarded-For: " + address);
            assertThat(response.status()).isEqualTo(200);
            assertThat(HostileInput.keysIn(response.body())).isEqualTo(address);
        }
        assertThat(RawHttp.get(server, LOGIN, "X-Forwarded-For: 2001:db8:e::1").header("X-RateLimit-Remaining"))
                .isNull();
        assertThat(RawHttp.get(server, LOGIN, "X-Forwarded-For: 2001:db8:e::2").header("X-RateLimit-Remaining"))
                .isEqualTo("1");
    }

    @Test
    void compositeKey_madeOfMissingAndAnotherClientsAddress_neverSpendsThatClientsFallback() throws Exception {
        JettyServer server = start("""
                {"rules": [{"id": "pair", "match": {"paths": ["%s"]},
                            "key": {"type": "composite", "parts": [{"type": "header", "name": "X-A"},
                                                                   {"type": "header", "name": "X-B"}]},
                            "limits": [{"permits": 2, "period": "1h"}]}]}
                """.formatted(LOGIN), s -> s.trustedProxies(List.of("127.0.0.1")));

        List<Integer> attacker = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            attacker.add(RawHttp.get(server, LOGIN, "X-Forwarded-For: 203.0.113.5", "X-A: missing",
                    "X-B: 198.51.100.77").status());
        }
        RawHttp.Response victim = RawHttp.get(server, LOGIN, "X-Forwarded-For: 198.51.100.77");

        assertThat(attacker).containsExactly(200, 200, 429);
        assertThat(victim.status()).isEqualTo(200);
        assertThat(HostileInput.keysIn(victim.body())).isEqualTo("%missing|198.51.100.77");
        assertThat(victim.header("X-RateLimit-Remaining")).isEqualTo("1");
    }

    @Test
    void oversizedHeader_answeredBeforeTheFilter_nextRequestStillCounted() throws Exception {
        JettyServer server = start("/", JettyServer.DEFAULT_REQUEST_HEADER_SIZE, s -> s);

        RawHttp.Response oversized = RawHttp.get(server, LOGIN, "X-Api-Key: " + MEGABYTE);
        RawHttp.Response next = RawHttp.get(server, LOGIN);

        assertThat(oversized.status()).isEqualTo(431);
        assertThat(next.status()).isEqualTo(200);
        assertThat(next.header("X-RateLimit-Remaining")).isEqualTo(Integer.toString(LOGIN_LIMIT - 1));
        assertThat(login.served()).isEqualTo(1);
    }

    @Test
    void headerWithCrLfOrControlBytes_rejectedBeforeTheFilter_nextRequestStillCounted() throws Exception {
        JettyServer server = start("/", JettyServer.DEFAULT_REQUEST_HEADER_SIZE, s -> s);

        for (String value : List.of("a\rb", "a\r\n b", "a\u0000b", "a\u007fb", "a\u0001b")) {
            RawHttp.Response response = RawHttp.get(server, LOGIN, "X-Api-Key: " + value);

            assertThat(response.status()).as(value.replace("\r", "\\r").replace("\n", "\\n")).isEqualTo(400);
        }
        // A bare LF ends the header line (RFC 9112 lets a recipient accept it): the rest is a header of its own.
        RawHttp.Response bareLf = RawHttp.get(server, LOGIN, "X-Api-Key: a\nX-Other: b");
        RawHttp.Response next = RawHttp.get(server, LOGIN);

        assertThat(bareLf.status()).isEqualTo(200);
        assertThat(HostileInput.keysIn(bareLf.body())).isEqualTo("127.0.0.1,a");
        assertThat(next.header("X-RateLimit-Remaining")).isEqualTo(Integer.toString(LOGIN_LIMIT - 2));
        assertThat(login.served()).isEqualTo(2);
    }

    @Test
    void keyedHeader_nonAsciiAndHugeValues_giveBoundedKeys() throws Exception {
        JettyServer server = start("/", HEADERS_OF_TWO_MEGABYTES, s -> s);
        // Header lines are sent one byte per char, and Jetty reads header bytes as ISO-8859-1: "café" in UTF-8 is
        // two chars where "é" was; a C1 control byte (0x80) is escaped like any other control character.
        Map<String, String> keyByApiKey = Map.of(
                "caf\u00c3\u00a9", "caf\u00c3\u00a9",
                "caf\u00e9\u00ff\u0080", "caf\u00e9\u00ff%80",
                "a\tb%|c", "a%09b%25%7cc");
        for (Map.Entry<String, String> apiKey : keyByApiKey.entrySet()) {
            assertThat(apiKeyCounted(server, apiKey.getKey())).isEqualTo(apiKey.getValue());
        }

        List<String> hashed = new ArrayList<>();
        for (String huge : List.of("\u00c3\u00a9".repeat(129), MEGABYTE, "2" + MEGABYTE.substring(1))) {
            hashed.add(apiKeyCounted(server, huge));
        }
        assertThat(hashed).allSatisfy(key -> assertThat(key).matches("sha256:[0-9a-f]{32}")).doesNotHaveDuplicates();
    }

    /** The key the api-key rule counted a request with {@code X-Api-Key: value} under. */
    private static String apiKeyCounted(JettyServer server, String value) throws Exception {
        RawHttp.Response response = RawHttp.get(server, LOGIN, "X-Api-Key: " + value);
        assertThat(response.status()).isEqualTo(200);
        return HostileInput.keysIn(response.body()).substring("127.0.0.1,".length());
    }
}
