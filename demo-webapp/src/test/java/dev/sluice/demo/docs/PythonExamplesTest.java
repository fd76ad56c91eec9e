package dev.sluice.demo.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.demo.DemoInstances;
import dev.sluice.demo.launcher.DemoLauncher;
import dev.sluice.docs.MarkdownBlock;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code python} block of the docs, run as its page says (issue 40.5): with {@code python3} and its standard
 * library alone, as a script against a live demo (started by the launcher, as users start it), the documented origin
 * {@value #DOCUMENTED_ORIGIN} replaced by the demo's. A block is a script whose {@code __main__} part calls its helpers
 * on the demo's limits; it must end with exit code 0. Where {@code python3} is missing, the blocks are skipped, saying
 * so.
 */
@Tag("cluster")
class PythonExamplesTest {

    private static final String DOCUMENTED_ORIGIN = "http://127.0.0.1:8080";
    private static final List<MarkdownBlock> BLOCKS = MarkdownBlock.of(MarkdownBlock.pages(
            DocumentationExamplesTest.ROOT)).stream().filter(block -> block.tag().equals("python")).toList();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static DemoLauncher.RunningDemo demo;

    @TempDir
    static Path scripts;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(DocumentationExamplesTest.Shell.exists("python3"),
                "no python3 on this machine: the docs' Python blocks are not run");
        demo = DemoLauncher.start(DemoInstances.cluster(1).get(0));
    }

    @AfterAll
    static void stop() throws Exception {
        if (demo != null) {
            demo.close();
        }
    }

    /**
     * Each block's script ends with exit code 0; the limiter page's gave back what it took: the export's permit is free
     * again, all four of the key's.
     */
    @TestFactory
    Stream<DynamicTest> pythonBlocks_runAsScriptsAgainstTheDemo_exitZero() {
        assertThat(BLOCKS).as("the limiter service's page has Python").isNotEmpty();
        return BLOCKS.stream().map(block -> DynamicTest.dynamicTest(block.where(), () -> {
            assertThat(block.text()).as("a block runs as a script against the demo")
                    .contains("if __name__ == \"__main__\":").contains(DOCUMENTED_ORIGIN);
            String origin = "http://127.0.0.1:" + demo.uri().getPort();
            Path script = Files.writeString(scripts.resolve("block-" + block.line() + ".py"),
                    block.text().replace(DOCUMENTED_ORIGIN, origin));
            Process python = new ProcessBuilder("python3", script.toString()).redirectErrorStream(true).start();
            String output = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

            assertThat(python.waitFor()).as(block.where() + " printed:\n" + output).isZero();
            assertThat(output).as("what its __main__ printed").isNotBlank();
            if (block.file().endsWith("limiter-service.md")) {
                assertThat(output).contains("export of account-42 done", "model answered");
                for (int i = 0; i < 4; i++) {
                    HttpResponse<String> permit = HTTP.send(HttpRequest.newBuilder(demo.uri().resolve(
                            "api/limits/exports/account-42/permits?leaseMs=1000")).timeout(Duration.ofSeconds(30))
                            .header("Sluice-Client", "docs-tests").POST(HttpRequest.BodyPublishers.noBody()).build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(permit.statusCode()).as("permit %d of 4: %s", i + 1, permit.body()).isEqualTo(200);
                }
            }
        }));
    }
}
