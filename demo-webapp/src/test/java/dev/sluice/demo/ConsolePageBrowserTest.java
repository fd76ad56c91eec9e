package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.demo.launcher.DemoLauncher;
import dev.sluice.demo.launcher.DemoOptions;
import dev.sluice.engine.KeyMask;
import dev.sluice.hazelcast.ClusterSupport;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console of two demo instances in one cluster, under a context path: its JSON API sums what both were sent and
 * needs the token; an override set through one instance's console is listed by the other's and holds there; the page
 * renders the sum and the override in a real headless Chromium ({@link HeadlessChromium}) with no error and no key in
 * clear. The test leaves a screenshot of the page in {@code target/console.png} (the one in
 * {@code docs/console.png} was taken so).
 */
@Tag("cluster")
class ConsolePageBrowserTest {

    private static final Pattern HELLO_CARD = Pattern.compile(
            "<article class=\"rule\" data-rule=\"hello-per-ip\" data-allowed=\"(\\d+)\" data-delayed=\"(\\d+)\""
                    + " data-rejected=\"(\\d+)\"");

    private static final String BLOCK = """
            {"rule": "hello-per-ip", "key": "198.51.100.42", "kind": "blocked", "lastingSeconds": 3600,
             "reason": "abuse report 17", "setBy": "alice"}""";

    @TempDir
    Path temp;

    @Test
    void consolePage_twoInstancesUnderAContextPath_showsTheirSumWithoutErrors() throws Exception {
        HeadlessChromium chromium = HeadlessChromium.inDirectory(temp);
        List<DemoOptions> options = DemoInstances.cluster(2);
        try (DemoLauncher.RunningDemo first = DemoLauncher.start(options.get(0).withContextPath("/app"));
             DemoLauncher.RunningDemo second = DemoLauncher.start(options.get(1).withContextPath("/app"))) {
            DemoHttp one = new DemoHttp(first.uri());
            DemoHttp other = new DemoHttp(second.uri());
            // One client past hello-per-ip's 5 per 30 s through the first instance, another within it through both.
            for (int i = 0; i < 8; i++) {
                one.get("api/hello", "X-Forwarded-For", "198.51.100.40");
            }
            for (int i = 0; i < 2; i++) {
                one.get("api/hello", "X-Forwarded-For", "198.51.100.41");
                other.get("api/hello", "X-Forwarded-For", "198.51.100.41");
            }

            assertThat(one.get("api/console/cluster").statusCode()).isEqualTo(401);
            assertThat(one.get("api/console/cluster", "Authorization", "Bearer not-the-token-at-all")
                    .statusCode()).isEqualTo(401);
            String authorization = "Bearer " + first.consoleToken();
            ClusterSupport.await(() -> hello(one, authorization).path("totals").path("allowed").asLong() == 9
                    && hello(one, authorization).path("totals").path("rejected").asLong() == 3, Duration.ofSeconds(30),
                    "both instances' 12 hello-per-ip decisions in the console");
            JsonNode view = DemoHttp.json(one.get("api/console/cluster", "Authorization", authorization));
            assertThat(view.path("instances")).hasSize(2);
            assertThat(view.path("drift").asBoolean()).isFalse();
            // An override set through the other instance's console is listed by this one's, and holds here.
            HttpResponse<String> set = other.sendJson("POST", "api/console/overrides", BLOCK,
                    "Authorization", "Bearer " + second.consoleToken());
            assertThat(set.statusCode()).as(set.body()).isEqualTo(201);
            ClusterSupport.await(() -> view(one, authorization).path("overrides").size() == 1,
                    Duration.ofSeconds(30), "the override in the first instance's console");

            String page = first.consolePage().toString();
            String dom = chromium.dumpDom(page);
            assertThat(dom).contains("<ul id=\"errors\" data-count=\"0\"></ul>");
            // Rendered again from later answers: the page keeps polling (the dump runs it for 10 s of virtual time).
            assertThat(dom).containsPattern("<body data-renders=\"([2-9]|[1-9][0-9]+)\"");
            Matcher card = HELLO_CARD.matcher(dom);
            assertThat(card.find()).as("the hello-per-ip rule's card in\n" + dom).isTrue();
            assertThat(card.group(1)).isEqualTo("9");
            assertThat(card.group(3)).isEqualTo("3");
            assertThat(dom).contains("<rect class=\"bar allowed\"", "<rect class=\"bar rejected\"",
                    "<section id=\"drift\" hidden=\"\"");
            assertThat(dom).containsPattern("most limited keys: #[0-9a-f]{8}: 3 limited");
            assertThat(dom).doesNotContain("198.51.100.40", "198.51.100.41", "198.51.100.42", first.consoleToken());
            assertThat(Pattern.compile("<tr data-instance=").matcher(dom).results().count())
                    .isEqualTo(2);
            assertThat(dom).contains("<tr data-rule=\"hello-per-ip\" data-kind=\"blocked\"><td>hello-per-ip</td><td>"
                    + KeyMask.of("198.51.100.42") + "</td><td>blocked</td><td>abuse report 17</td><td>alice</td>");

            Path png = Path.of("target", "console.png");
            Files.createDirectories(png.getParent());
            chromium.screenshot(page, png, 1100, 1300);

            for (int i = 0; i < 3; i++) {
                assertThat(one.get("api/hello", "X-Forwarded-For", "198.51.100.42").statusCode()).isEqualTo(429);
            }
        }
    }

    /** The console's answer to {@code GET console/cluster}. */
    private static JsonNode view(DemoHttp http, String authorization) {
        try {
            return DemoHttp.json(http.get("api/console/cluster", "Authorization", authorization));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode hello(DemoHttp http, String authorization) {
        for (JsonNode rule : view(http, authorization).path("rules")) {
            if (rule.path("id").asText().equals("hello-per-ip")) {
                return rule;
            }
        }
        return view(http, authorization).path("none");
    }
}
