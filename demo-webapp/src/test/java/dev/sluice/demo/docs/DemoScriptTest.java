package dev.sluice.demo.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code demo.sh} starts the demo with the module-system options Hazelcast asks for, the same list the build gives the
 * test JVMs ({@code sluice.test.argLine} in the root {@code pom.xml}), so the demo prints no module-system warning; and
 * it says what the build is doing before the build.
 */
class DemoScriptTest {

    private static final Pattern SCRIPT_OPTIONS = Pattern.compile("(?s)HAZELCAST_JVM_OPTIONS=\\((.*?)\\)");
    private static final Pattern BUILD_OPTIONS = Pattern.compile("(?s)<sluice\\.test\\.argLine>(.*?)</sluice");

    @Test
    void demoScript_hazelcastsJvmOptions_theBuildsTestJvmOptions() throws IOException {
        String script = Files.readString(DocumentationExamplesTest.ROOT.resolve("demo.sh"));
        String pom = Files.readString(DocumentationExamplesTest.ROOT.resolve("pom.xml"));

        List<String> passed = words(SCRIPT_OPTIONS, script);
        List<String> build = words(BUILD_OPTIONS, pom).stream().filter(word -> !word.startsWith("${")).toList();

        assertThat(passed).as("demo.sh's options").isNotEmpty().isEqualTo(build);
        assertThat(script).contains("exec java \"${HAZELCAST_JVM_OPTIONS[@]}\"");
    }

    @Test
    void demoScript_beforeTheBuild_saysWhatIsHappening() throws IOException {
        String script = Files.readString(DocumentationExamplesTest.ROOT.resolve("demo.sh"));

        assertThat(script.indexOf("echo \"Building the demo with Maven")).as("a line before the build").isPositive()
                .isLessThan(script.indexOf("mvn "));
        assertThat(script).as("Maven's log not silenced").doesNotContain("mvn -B -q");
    }

    private static List<String> words(Pattern pattern, String text) {
        Matcher match = pattern.matcher(text);
        assertThat(match.find()).as(pattern.pattern()).isTrue();
        return Arrays.stream(match.group(1).trim().split("\\s+")).toList();
    }
}
