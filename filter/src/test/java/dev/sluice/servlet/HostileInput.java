package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.engine.Evaluation;
import dev.sluice.engine.RuleDecision;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The hostile-input checks every adapter must pass, asserted over real HTTP: the servlet filter's tests and the Jersey
 * binding's run the same requests against a resource at {@link #LOGIN} limited to {@link #LOGIN_LIMIT} requests an
 * hour per client IP (rule id {@code login}), which answers with {@link #keys} of the evaluation it was served under.
 */
public final class HostileInput {

    /** The protected resource's path. */
    public static final String LOGIN = "/api/login";

    /** The login limit: more than there are {@link #LOGIN_VARIANTS}, so each one that is routed is also admitted. */
    public static final int LOGIN_LIMIT = 24;

    /**
     * Other spellings of {@link #LOGIN}: empty segments, path parameters, dot segments (plain, percent-encoded, with a
     * parameter), percent-encoded letters, separators, ";" and "?", a trailing slash, a query, and other letter case.
     */
    public static final List<String> LOGIN_VARIANTS = List.of(
            "//api//login",
            "/api;x=1/login;jsessionid=1",
            "/api/./login",
            "/api/x/../login",
            "/x/../api/login",
            "/../api/login",
            "/api/%2e/login",
            "/api/x/%2e%2e/login",
            "/api/x/..;/login",
            "/api/%6Cogin",
            "/%61pi/login",
            "/api/log%69n;a=b",
            "/api%2Flogin",
            "/api/login%3Bx=1",
            "/api/login%3F",
            "/api/login/",
            "/api/login?x=1",
            "/API/LOGIN",
            "/Api/Login");

    private static final Pattern KEYS = Pattern.compile("keys=(\\S*)");

    /**
     * Rules for {@link #assertNoHostSpellingEscapesTheHostRules}: {@link #LOGIN} limited for the host
     * {@code api.example.com} (any port) by rule {@code api}, and for {@code admin.example.com:8443} by rule
     * {@code admin}.
     */
    public static final String HOST_RULES = """
            {"rules": [{"id": "api", "match": {"paths": ["%1$s"], "host": "api.example.com"},
                        "limits": [{"permits": 1000, "period": "1h"}]},
                       {"id": "admin", "match": {"paths": ["%1$s"], "host": "admin.example.com:8443"},
                        "limits": [{"permits": 1000, "period": "1h"}]}]}
            """.formatted(LOGIN);

    /** Both host rules of {@link #HOST_RULES}: what a request that names neither host meets. */
    private static final String BOTH = "api,admin";

    /** A request turned away before any rule (400), never served. */
    private static final String REFUSED = "400";

    /**
     * Spellings of a request for {@link #LOGIN} over HTTP/1.1 (and 1.0), each as its request line and header lines,
     * with the host rules of {@link #HOST_RULES} that count it ("api,admin" for both) or {@value #REFUSED} when the
     * server turns it away; {@code PORT} stands for the server's port. Case, a trailing dot and a port the pattern
     * does not restrict pick the rule of their host; any other host, or none, meets both.
     */
    private static final Map<String, String> HOST_SPELLINGS = hostSpellings();

    private static Map<String, String> hostSpellings() {
        Map<String, String> spellings = new LinkedHashMap<>();
        String get = "GET " + LOGIN + " HTTP/1.1\r\n";
        spellings.put(get + "Host: api.example.com", "api");
        spellings.put(get + "Host: API.Example.COM", "api");
        spellings.put(get + "Host: api.example.com.", "api");
        spellings.put(get + "Host: api.example.com:80", "api");
        spellings.put(get + "Host: api.example.com:8443", "api");
        spellings.put(get + "Host: admin.example.com:8443", "admin");
        spellings.put(get + "Host: Admin.Example.com.:8443", "admin");
        spellings.put(get + "Host: admin.example.com", BOTH);
        spellings.put(get + "Host: admin.example.com:9443", BOTH);
        spellings.put(get + "Host: 127.0.0.1:PORT", BOTH);
        spellings.put(get + "Host: [::1]:PORT", BOTH);
        spellings.put(get + "Host: www.example.com", BOTH);
        spellings.put(get + "Host: api.example.com..", BOTH);
        spellings.put(get + "Host: api.example.com.evil.test", BOTH);
        spellings.put(get + "Host:", REFUSED);
        spellings.put(get.replace("HTTP/1.1", "HTTP/1.0").trim(), BOTH);
        spellings.put(get.trim(), REFUSED);
        spellings.put(get + "Host: admin.example.com:8443\r\nHost: api.example.com", REFUSED);
        spellings.put(get + "Host: api.example.com:80:80", REFUSED);
        // An absolute request target names the authority, and the Host header must agree.
        spellings.put(get.replace(LOGIN, "http://admin.example.com:8443" + LOGIN) + "Host: admin.example.com:8443",
                "admin");
        spellings.put(get.replace(LOGIN, "http://www.example.com" + LOGIN) + "Host: www.example.com", BOTH);
        spellings.put(get.replace(LOGIN, "http://www.example.com" + LOGIN) + "Host: api.example.com", REFUSED);
        return spellings;
    }

    /**
     * HTTP/2 requests for {@link #LOGIN}, each as its header fields after {@code :method}, {@code :scheme} and
     * {@code :path} (names and values in turn), with the host rules that count it, as {@link #HOST_SPELLINGS}.
     */
    private static final List<Map.Entry<List<String>, String>> HTTP2_HOST_SPELLINGS = List.of(
            Map.entry(List.of(":authority", "api.example.com"), "api"),
            Map.entry(List.of(":authority", "admin.example.com:8443"), "admin"),
            Map.entry(List.of(":authority", "ADMIN.example.com.:8443"), "admin"),
            Map.entry(List.of(":authority", "admin.example.com"), BOTH),
            Map.entry(List.of(":authority", "127.0.0.1:PORT"), BOTH),
            // Jetty takes the authority from :authority alone: a host field without it names no host rule's host.
            Map.entry(List.of("host", "admin.example.com:8443"), BOTH),
            Map.entry(List.of(":authority", "admin.example.com:8443", "host", "api.example.com"), REFUSED),
            Map.entry(List.<String>of(), BOTH));

    private HostileInput() {
    }

    /** The keys each rule counted the request under, as the protected resources answer them: {@code keys=a,b}. */
    public static String keys(Evaluation evaluation) {
        return "keys=" + (evaluation == null ? ""
                : evaluation.outcomes().stream().map(RuleDecision::key).collect(Collectors.joining(",")));
    }

    /** The keys in a response body written with {@link #keys}. */
    public static String keysIn(String body) {
        Matcher keys = KEYS.matcher(body);
        assertThat(keys.find()).as("keys in %s", body).isTrue();
        return keys.group(1);
    }

    /** What became of one request: its status, and whether the login rule counted it. */
    public record Outcome(int status, boolean counted) {
    }

    /**
     * Sends every one of {@link #LOGIN_VARIANTS} under {@code contextSpelling} (the application's context path
     * {@code contextPath}, "" for the root, as the client chooses to write it) to a server whose login counter is
     * fresh and whose resource has served nothing yet ({@code served} counts its invocations), then the canonical
     * path until the limit is used up, then every variant again. Asserts
     * that no request reaches the resource without being counted on the login counter: a variant is either admitted
     * and counted (200, one fewer remaining, served once) or turned away before the resource (400 or 404, never
     * served; counted or not, since counting more than was served is the safe side); never a 500; once the limit is
     * used up, no variant is admitted. Returns each variant's outcome in the first round.
     */
    public static Map<String, Outcome> assertPathVariantsCountedOrTurnedAway(
            JettyServer server, String contextPath, String contextSpelling, IntSupplier served) throws Exception {
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        int counted = 0;
        for (String variant : LOGIN_VARIANTS) {
            int servedBefore = served.getAsInt();
            RawHttp.Response response = RawHttp.get(server, contextSpelling + variant);
            String remaining = response.header("X-RateLimit-Remaining");
            outcomes.put(variant, new Outcome(response.status(), remaining != null));
            if (remaining != null) {
                counted++;
                assertThat(remaining).as("%s counted on the login counter", variant)
                        .isEqualTo(Integer.toString(LOGIN_LIMIT - counted));
            }
            if (response.status() == 200) {
                assertThat(remaining).as("%s admitted, so counted", variant).isNotNull();
                assertThat(served.getAsInt()).as("%s served once", variant).isEqualTo(servedBefore + 1);
            } else {
                assertThat(response.status()).as("%s neither admitted nor failing", variant).isIn(400, 404);
                assertThat(served.getAsInt()).as("%s never reaches the resource", variant).isEqualTo(servedBefore);
            }
        }
        for (; counted < LOGIN_LIMIT; counted++) {
            assertThat(RawHttp.get(server, contextPath + LOGIN).status()).isEqualTo(200);
        }
        assertThat(RawHttp.get(server, contextPath + LOGIN).status()).as("the limit is used up").isEqualTo(429);
        int servedAtTheLimit = served.getAsInt();
        for (String variant : LOGIN_VARIANTS) {
            assertThat(RawHttp.get(server, contextSpelling + variant).status()).as("%s after the limit", variant)
                    .isIn(400, 404, 429);
        }
        assertThat(served.getAsInt()).as("served after the limit").isEqualTo(servedAtTheLimit)
                .isLessThanOrEqualTo(LOGIN_LIMIT);
        return outcomes;
    }

    /** Rules for {@link #assertMethodsCountedAsRoutingRunsThem}: {@link #LOGIN} limited for GET and for DELETE. */
    public static final String METHOD_RULES = """
            {"rules": [{"id": "get", "match": {"paths": ["%1$s"], "methods": ["GET"]},
                        "limits": [{"permits": 1000, "period": "1h"}]},
                       {"id": "delete", "match": {"paths": ["%1$s"], "methods": ["DELETE"]},
                        "limits": [{"permits": 1000, "period": "1h"}]}]}
            """.formatted(LOGIN);

    /**
     * Requests for {@link #LOGIN} by the methods the application runs them as, each as its request line and header
     * lines, with the rules of {@link #METHOD_RULES} that count it: a HEAD runs the GET handler, a POST that a
     * method-override filter turns into a DELETE runs the DELETE handler.
     */
    private static final Map<String, String> METHOD_SPELLINGS = Map.of(
            "HEAD " + LOGIN + " HTTP/1.1", "get",
            "GET " + LOGIN + " HTTP/1.1", "get",
            "DELETE " + LOGIN + " HTTP/1.1", "delete",
            "POST " + LOGIN + " HTTP/1.1\r\nX-HTTP-Method-Override: DELETE\r\nContent-Length: 0", "delete",
            "POST " + LOGIN + "?_method=delete HTTP/1.1\r\nContent-Length: 0", "delete");

    /**
     * Sends each of {@link #METHOD_SPELLINGS} to a server limiting {@link #LOGIN} by {@link #METHOD_RULES}, whose
     * resource ({@code served} counts its invocations) answers 200 to GET, HEAD and DELETE (a POST overridden as a
     * DELETE included); asserts that each is served once and counted by the rule of the method it runs as.
     */
    public static void assertMethodsCountedAsRoutingRunsThem(JettyServer server, IntSupplier served)
            throws Exception {
        URI base = server.uri("/");
        for (Map.Entry<String, String> spelling : METHOD_SPELLINGS.entrySet()) {
            String request = spelling.getKey() + "\r\nHost: " + base.getHost() + ":" + base.getPort();
            int servedBefore = served.getAsInt();
            RawHttp.Response response = RawHttp.send(base, (request + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            assertCounted(response, spelling.getValue(), request.replace("\r\n", " / "), served, servedBefore);
        }
    }

    /** The ids of the rules that counted a request, from the {@code RateLimit} field's names ({@code id:1000/1h}). */
    public static String rulesCounting(RawHttp.Response response) {
        String field = response.header("RateLimit");
        if (field == null) {
            return "";
        }
        Matcher name = RATE_LIMIT_NAME.matcher(field);
        List<String> ids = new ArrayList<>();
        while (name.find()) {
            ids.add(name.group(1));
        }
        return String.join(",", ids);
    }

    private static final Pattern RATE_LIMIT_NAME = Pattern.compile("\"([^\":]+):[^\"]*\"");

    /**
     * Sends every spelling of the host a request for {@link #LOGIN} can take, over HTTP/1.1 (and 1.0) and HTTP/2, to
     * a server limiting it by {@link #HOST_RULES} whose login resource ({@code served} counts its invocations) answers
     * 200. Asserts that no spelling reaches the resource uncounted by the host rules: each is counted by the rule of
     * the host it names, or by both when it names neither host (another host, an address, another port, no host), or
     * turned away (400) and never served. {@code http2} is false for a server that speaks HTTP/1 alone.
     */
    public static void assertNoHostSpellingEscapesTheHostRules(JettyServer server, IntSupplier served, boolean http2)
            throws Exception {
        String port = Integer.toString(server.uri("/").getPort());
        for (Map.Entry<String, String> spelling : HOST_SPELLINGS.entrySet()) {
            String request = spelling.getKey().replace("PORT", port);
            int servedBefore = served.getAsInt();
            RawHttp.Response response = RawHttp.send(server.uri("/"), (request + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            assertCounted(response, spelling.getValue(), request.replace("\r\n", " / "), served, servedBefore);
        }
        if (!http2) {
            return;
        }
        for (Map.Entry<List<String>, String> spelling : HTTP2_HOST_SPELLINGS) {
            List<String> fields = new ArrayList<>(List.of(":method", "GET", ":scheme", "http", ":path", LOGIN));
            spelling.getKey().forEach(field -> fields.add(field.replace("PORT", port)));
            int servedBefore = served.getAsInt();
            RawHttp.Response response = RawHttp2.send(server, fields.toArray(String[]::new));
            assertCounted(response, spelling.getValue(), "HTTP/2 " + fields, served, servedBefore);
        }
    }

    private static void assertCounted(RawHttp.Response response, String expected, String request, IntSupplier served,
                                      int servedBefore) {
        if (expected.equals(REFUSED)) {
            assertThat(response.status()).as("%s refused", request).isEqualTo(400);
            assertThat(served.getAsInt()).as("%s never served", request).isEqualTo(servedBefore);
        } else {
            assertThat(response.status()).as("%s admitted", request).isEqualTo(200);
            assertThat(rulesCounting(response)).as("%s counted by", request).isEqualTo(expected);
            assertThat(served.getAsInt()).as("%s served once", request).isEqualTo(servedBefore + 1);
        }
    }

    /**
     * Sends {@link #LOGIN_LIMIT} + 3 requests to {@link #LOGIN} from a peer that is no trusted proxy, each claiming
     * another client in {@code X-Forwarded-For}, {@code Forwarded} and {@code X-Real-IP}; asserts that all are keyed
     * by the socket's address, so exactly {@link #LOGIN_LIMIT} are admitted and served.
     */
    public static void assertSpoofedForwardingIgnored(JettyServer server, IntSupplier served) throws Exception {
        int admitted = 0;
        for (int i = 0; i < LOGIN_LIMIT + 3; i++) {
            HttpResponse<String> response = server.get(LOGIN, "X-Forwarded-For", "203.0.113." + i,
                    "Forwarded", "for=198.51.100." + i, "X-Real-IP", "192.0.2." + i);
            assertThat(response.statusCode()).as("request %d", i).isEqualTo(i < LOGIN_LIMIT ? 200 : 429);
            if (response.statusCode() == 200) {
                admitted++;
                assertThat(keysIn(response.body())).isEqualTo("127.0.0.1");
            }
        }
        assertThat(admitted).isEqualTo(LOGIN_LIMIT);
        assertThat(served.getAsInt()).isEqualTo(LOGIN_LIMIT);
    }
}
