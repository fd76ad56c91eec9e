package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.engine.Evaluation;
import dev.sluice.engine.RuleDecision;
import java.net.http.HttpResponse;
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
