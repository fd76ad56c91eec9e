package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM options docs/cluster.md says Hazelcast asks a member for: the same list in the page, in the build's test
 * JVMs ({@code sluice.test.argLine} in the root pom) and in the member bundle's start script; and, in a member process,
 * the very list Hazelcast 5.7 prints when they are missing, and no such warning when they are given.
 */
class MemberJvmOptionsTest {

    private static final Path ROOT = Path.of("..");
    private static final String SECTION = "### The JVM options Hazelcast asks for";
    /** How Hazelcast's warning ends, right before the list. */
    private static final String WARNING = "Arguments to be used:";
    private static final Duration START_WAIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void documentedOptions_areThoseOfTheTestJvmsAndTheStartScript() throws IOException {
        List<String> documented = documented();

        assertThat(documented).as("the page's list").startsWith("--add-modules").hasSize(12);
        Matcher argLine = Pattern.compile("<sluice\\.test\\.argLine>(.*?)\\$\\{sluice\\.test\\.properties}",
                Pattern.DOTALL).matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(argLine.find()).isTrue();
        assertThat(words(argLine.group(1))).as("sluice.test.argLine in pom.xml").isEqualTo(documented);
        String script = Files.readString(ROOT.resolve("hazelcast/src/member/bin/start-member.sh"));
        String exec = script.substring(script.indexOf("exec "), script.indexOf("-Dhazelcast.config"))
                .replace("\\\n", " ");
        assertThat(words(exec)).as("the start script's java command")
                .containsSequence(documented);
    }

    @Tag("cluster")
    @Test
    void member_withoutTheOptions_asksForExactlyTheDocumentedOnes_andWithThemAsksNothing() throws Exception {
        List<String> documented = documented();

        String without = memberOutput(List.of(), "bare");
        int warning = without.indexOf(WARNING);
        assertThat(warning).as("Hazelcast's warning in:\n" + without).isNotNegative();
        String asked = without.substring(warning + WARNING.length()).strip().lines().findFirst().orElseThrow();
        assertThat(words(asked)).as("what Hazelcast asks for").isEqualTo(documented);

        assertThat(memberOutput(documented, "given")).doesNotContain(WARNING);
    }

    /** The page's list: the first block of its section, one option per word. */
    private static List<String> documented() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/cluster.md"));
        int start = page.indexOf(SECTION);
        assertThat(start).as("docs/cluster.md has " + SECTION).isNotNegative();
        Matcher block = Pattern.compile("```text\\n(.*?)```", Pattern.DOTALL).matcher(page);
        assertThat(block.find(start)).isTrue();
        return words(block.group(1));
    }

    private static List<String> words(String text) {
        return List.of(text.strip().split("\\s+"));
    }

    /** What a plain Hazelcast member started with {@code options} writes until it is started. */
    private String memberOutput(List<String> options, String name) throws Exception {
        int port = ClusterSupport.freePort();
        Path config = ClusterSupport.memberYaml(Files.createDirectories(dir.resolve(name)),
                ClusterSupport.newClusterName(), port, List.of(port));
        Path log = dir.resolve(name + ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx128m"));
        command.addAll(options);
        command.addAll(List.of("-Dhazelcast.config=" + config, "-cp", System.getProperty("java.class.path"),
                "com.hazelcast.core.server.HazelcastMemberStarter"));
        Process member = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            ClusterSupport.await(() -> read(log).contains("is STARTED") || !member.isAlive(), START_WAIT,
                    "the member to start");
            return read(log);
        } finally {
            member.destroy();
            member.onExit().get();
        }
    }

    private static String read(Path log) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
