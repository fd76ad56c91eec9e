package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.demo.launcher.DemoLauncher;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The live page in a real headless Chromium (Debian's {@code chromium}; CI installs it): after a burst, the page
 * has loaded the stats and drawn the rule's chart, and reported no error. Chromium's DOM dump is taken once the
 * page's scripts and fetches are done ({@code --virtual-time-budget}); the page writes any script error or
 * {@code console.error} into {@code #errors}, which the dump shows.
 *
 * <p>On a machine without Chromium the test is skipped ({@link HeadlessChromium}), so that the README's test command
 * passes with Java and Maven alone; {@code -Dsluice.browser.required=true} (set by {@code .ci/run}, which installs
 * Chromium) makes a missing browser a failure instead.
 */
@Tag("cluster")
class LivePageBrowserTest {

    private static final Pattern HELLO_CARD = Pattern.compile(
            "<article class=\"rule\" data-rule=\"hello-per-ip\" data-allowed=\"(\\d+)\" data-delayed=\"(\\d+)\""
                    + " data-rejected=\"(\\d+)\"");

    @TempDir
    Path temp;

    /** At the root and under a context path: the page's URLs are relative, so it works wherever it is served. */
    @ParameterizedTest
    @ValueSource(strings = {"/", "/app"})
    void livePage_afterABurst_chartsTheRulesDecisionsWithoutErrors(String contextPath) throws Exception {
        HeadlessChromium chromium = HeadlessChromium.inDirectory(temp);
        try (DemoLauncher.RunningDemo demo = DemoLauncher.start(DemoInstances.cluster(1).get(0)
                .withContextPath(contextPath))) {
            DemoHttp http = new DemoHttp(demo.uri());
            for (int i = 0; i < 8; i++) {
                http.get("api/hello", "X-Forwarded-For", "198.51.100.30");
            }
            http.post("api/limits/partner-api/increment", DemoHttp.SERVICE_CLIENT);
            http.post("api/limits/partner-api/increment", DemoHttp.SERVICE_CLIENT);
            assertLivePage(chromium.dumpDom(demo.uri().toString()));
        }
    }

    private static void assertLivePage(String dom) {
        assertThat(dom).contains("<ul id=\"errors\" data-count=\"0\"></ul>");
        assertThat(dom).containsPattern("<body data-renders=\"[1-9]");
        Matcher card = HELLO_CARD.matcher(dom);
        assertThat(card.find()).as("the hello-per-ip rule's card in\n" + dom).isTrue();
        assertThat(card.group(1)).isEqualTo("5");
        assertThat(card.group(3)).isEqualTo("3");
        assertThat(dom).contains("<rect class=\"bar allowed\"", "<rect class=\"bar rejected\"");
        assertThat(dom).doesNotContain("198.51.100.30");
        assertThat(dom).contains(
                "<p id=\"store\" data-mode=\"hazelcast-member\" data-members=\"1\" data-failing=\"0\"");
        // The limiter service's limits beside the rules: two of partner-api's ten per minute used (a minute is longer
        // than the page takes to load), and the per-key limit listed without counts.
        assertThat(dom).contains("<tr data-id=\"partner-api\"><td>partner-api</td><td>10 per 60 s</td>"
                + "<td>stepped_sliding_window</td><td class=\"used\">2</td><td class=\"remaining\">8</td>"
                + "<td class=\"next-free\">now</td></tr>");
        assertThat(dom).contains(
                "<tr data-id=\"remote-accounts\"><td>remote-accounts</td><td>5 per 10 s, per key</td>");
        assertThat(dom).contains("<tr data-id=\"llm-provider\"><td>llm-provider</td>"
                + "<td>20 per 61 s and 5000 tokens per 61 s, per key</td>");
        assertThat(dom).contains("<tr data-id=\"exports\"><td>exports</td><td>4 at once, per key</td>"
                + "<td>concurrency</td>");
    }
}
