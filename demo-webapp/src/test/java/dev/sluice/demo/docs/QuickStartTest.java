package dev.sluice.demo.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.docs.MarkdownBlock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start, done as a reader would: its {@code web.xml} block and rules file deployed in a web
 * application on a real Jetty 12 (with a static {@code /api/hello}), its curl commands run against it, and what they
 * print compared with what the README shows, the {@code http} block being the last command's answer. The seconds
 * in that answer may be one or two lower than documented, as time passes between the requests.
 */
class QuickStartTest {

    private static final Path README = DocumentationExamplesTest.ROOT.resolve("README.md");
    private static final String DOCUMENTED_ORIGIN = "http://localhost:8080";
    private static final Pattern SECONDS = Pattern.compile(
            "(t=|Retry-After: |X-RateLimit-Reset: |\"retryAfter\":|Retry in )(\\d+)");
    private static final Pattern LIMITING_HEADER =
            Pattern.compile("(?i)^(RateLimit|X-RateLimit|Retry-After|Content-Type)");

    @TempDir
    Path webapp;

    @Test
    void readmeQuickStart_deployedOnJetty_curlSeesWhatTheReadmeShows() throws Exception {
        List<MarkdownBlock> blocks = MarkdownBlock.read(README);
        MarkdownBlock webXml = first(blocks, "xml", "<filter>");
        MarkdownBlock rules = first(blocks, "json", "\"rules\"");
        MarkdownBlock transcript = first(blocks, "console", "curl");
        MarkdownBlock answer = first(blocks, "http", "HTTP/1.1");
        assertThat(List.of(webXml.line(), rules.line(), transcript.line(), answer.line())).as("in reading order")
                .isSorted();

        Files.createDirectories(webapp.resolve("WEB-INF"));
        Files.createDirectories(webapp.resolve("api"));
        Files.writeString(webapp.resolve("WEB-INF/web.xml"), "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" "
                + "version=\"6.0\">\n" + webXml.text() + "</web-app>\n");
        Files.writeString(webapp.resolve("WEB-INF/sluice-rules.json"), rules.text());
        Files.writeString(webapp.resolve("api/hello"), "hello\n");

        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        WebAppContext context = new WebAppContext(webapp.toString(), "/");
        context.setParentLoaderPriority(true);
        context.setThrowUnavailableOnStartupException(true);
        server.setHandler(context);
        server.start();
        try {
            String origin = "http://127.0.0.1:" + connector.getLocalPort();
            List<Step> steps = steps(transcript.text());
            assertThat(steps).isNotEmpty();
            for (int i = 0; i < steps.size(); i++) {
                Step step = steps.get(i);
                assertThat(step.command()).contains(DOCUMENTED_ORIGIN);
                String printed = DocumentationExamplesTest.Shell.run(webapp, "bash", "-c",
                        step.command().replace(DOCUMENTED_ORIGIN, origin)).output();
                if (i < steps.size() - 1) {
                    assertThat(printed.trim()).as(step.command()).isEqualTo(step.output().trim());
                } else {
                    assertThat(step.output()).as("the last command's answer is the http block").isBlank();
                    sameAnswer(answer.text(), printed);
                }
            }
        } finally {
            server.stop();
        }
    }

    record Step(String command, String output) {
    }

    private static List<Step> steps(String transcript) {
        List<Step> steps = new ArrayList<>();
        String command = null;
        StringBuilder output = new StringBuilder();
        for (String line : transcript.split("\n")) {
            if (line.startsWith("$ ")) {
                if (command != null) {
                    steps.add(new Step(command, output.toString()));
                }
                command = line.substring(2);
                output.setLength(0);
            } else {
                output.append(line).append('\n');
            }
        }
        if (command != null) {
            steps.add(new Step(command, output.toString()));
        }
        return steps;
    }

    /**
     * The status line and body as documented; every documented header line present; every rate-limit header and the
     * content type that came documented.
     */
    private static void sameAnswer(String documented, String printed) {
        String actual = withDocumentedSeconds(documented, printed.replace("\r\n", "\n"));
        String[] documentedParts = documented.split("\n\n", 2);
        String[] actualParts = actual.split("\n\n", 2);
        List<String> documentedHead = documentedParts[0].lines().toList();
        List<String> actualHead = actualParts[0].lines().toList();
        assertThat(actualHead.get(0)).isEqualTo(documentedHead.get(0));
        assertThat(actualHead).containsAll(documentedHead);
        assertThat(actualHead.stream().filter(line -> LIMITING_HEADER.matcher(line).find()))
                .allSatisfy(line -> assertThat(documentedHead).contains(line));
        assertThat(actualParts[1].strip()).as("the body (the README wraps it after commas)")
                .isEqualTo(documentedParts[1].lines().map(String::strip).collect(Collectors.joining()));
    }

    /** {@code printed} with each seconds value replaced by the documented one, if it is at most 2 s lower. */
    private static String withDocumentedSeconds(String documented, String printed) {
        List<Integer> documentedSeconds = new ArrayList<>();
        Matcher inDocument = SECONDS.matcher(documented);
        while (inDocument.find()) {
            documentedSeconds.add(Integer.parseInt(inDocument.group(2)));
        }
        Matcher inAnswer = SECONDS.matcher(printed);
        StringBuilder result = new StringBuilder();
        int index = 0;
        while (inAnswer.find()) {
            int seconds = Integer.parseInt(inAnswer.group(2));
            int expected = index < documentedSeconds.size() ? documentedSeconds.get(index) : -1;
            index++;
            int shown = seconds <= expected && seconds >= expected - 2 ? expected : seconds;
            inAnswer.appendReplacement(result, Matcher.quoteReplacement(inAnswer.group(1) + shown));
        }
        inAnswer.appendTail(result);
        return result.toString();
    }

    private static MarkdownBlock first(List<MarkdownBlock> blocks, String tag, String containing) {
        return blocks.stream().filter(block -> block.tag().equals(tag) && block.text().contains(containing))
                .findFirst().orElseThrow(() -> new AssertionError("README.md has no " + tag + " block with "
                        + containing.toLowerCase(Locale.ROOT)));
    }
}
