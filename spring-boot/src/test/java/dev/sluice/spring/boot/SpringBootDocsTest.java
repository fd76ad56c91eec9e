package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryYamlConfig;
import com.hazelcast.config.InterfacesConfig;
import com.hazelcast.config.JavaSerializationFilterConfig;
import dev.sluice.docs.JavaExample;
import dev.sluice.docs.MarkdownBlock;
import dev.sluice.spring.boot.testapp.LimitedApplication;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The Spring blocks of {@code docs/spring-boot.md}, which the documentation test of the demo leaves to this module:
 * {@code java} blocks compile against this module's test class path (Spring, the starter), every {@code sluice.*}
 * property of a {@code properties} block is one Sluice knows and binds, the {@code hazelcast.yaml} binds its member to
 * an interface behind a Java serialization filter, and the page's samples of what a start that fails prints are what
 * a real application's start prints. (The page's actuator steps: {@code ActuatorStepsTest}.)
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringBootDocsTest {

    static final Path PAGE = Path.of("../docs/spring-boot.md");

    static final List<MarkdownBlock> BLOCKS = MarkdownBlock.read(PAGE);

    @TestFactory
    Stream<DynamicTest> javaBlocks_compileAgainstSpringAndTheStarter() {
        return blocks("java", JavaExample::assertCompiles);
    }

    @TestFactory
    Stream<DynamicTest> propertiesBlocks_sluicePropertiesKnownAndBound() {
        return blocks("properties", block -> {
            Properties properties = properties(block);
            Map<String, String> sluice = new HashMap<>();
            properties.stringPropertyNames().stream().filter(name -> name.startsWith("sluice."))
                    .forEach(name -> sluice.put(name, properties.getProperty(name)));
            assertThat(properties.stringPropertyNames()).as(block.where() + ": a sluice.* or management.* property")
                    .anyMatch(name -> name.startsWith("sluice.") || name.startsWith("management."));
            List<SluicePropertyNames.Name> known = SluicePropertyNames.known();
            assertThat(sluice.keySet()).as(block.where()).allSatisfy(name ->
                    assertThat(SluicePropertyNames.knownOrNotOurs(name, known)).as(name + " known").isTrue());
            assertThat(new Binder(new MapConfigurationPropertySource(sluice)).bind("sluice", SluiceProperties.class)
                    .isBound() || sluice.isEmpty()).as(block.where() + " binds").isTrue();
        });
    }

    @TestFactory
    Stream<DynamicTest> yamlBlocks_memberOnAnInterfaceBehindAJavaSerializationFilter() {
        return blocks("yaml", block -> {
            Config config = new InMemoryYamlConfig(block.text());
            InterfacesConfig interfaces = config.getNetworkConfig().getInterfaces();
            assertThat(interfaces.isEnabled()).as("interfaces enabled").isTrue();
            assertThat(interfaces.getInterfaces()).as("an interface named").isNotEmpty();
            assertThat(config.getProperty("hazelcast.socket.bind.any")).as("not every interface").isEqualTo("false");
            JavaSerializationFilterConfig filter = config.getSerializationConfig().getJavaSerializationFilterConfig();
            assertThat(filter).as("a Java serialization filter").isNotNull();
            assertThat(filter.getWhitelist().getPrefixes()).containsExactlyInAnyOrder("java.", "com.hazelcast.");
        });
    }

    /**
     * The page's "APPLICATION FAILED TO START" report of a misspelt field, printed by the start of an application
     * whose {@code classpath:sluice-rules.json} (as the filter reads it, through the thread's context class loader) is
     * the page's quick start with {@code limits} misspelt {@code limit}.
     */
    @Test
    void failedStartSample_misspeltField_isTheReportTheStartPrints(CapturedOutput output) {
        MarkdownBlock sample = BLOCKS.stream().filter(block -> block.text().contains("APPLICATION FAILED TO START"))
                .findFirst().orElseThrow();
        byte[] misspelt = quickStartRules().replace("\"limits\"", "\"limit\"").getBytes(StandardCharsets.UTF_8);
        Thread thread = Thread.currentThread();
        ClassLoader original = thread.getContextClassLoader();
        thread.setContextClassLoader(new ClassLoader(original) {
            @Override
            public InputStream getResourceAsStream(String name) {
                return name.equals("sluice-rules.json") ? new ByteArrayInputStream(misspelt)
                        : super.getResourceAsStream(name);
            }
        });
        try {
            assertThatThrownBy(() -> start()).isNotNull();
        } finally {
            thread.setContextClassLoader(original);
        }

        String printed = output.getOut().substring(output.getOut().indexOf("***************************"));
        assertThat(printed.substring(0, printed.indexOf("\n\n", printed.indexOf("Action:") + 9)))
                .isEqualTo(sample.text().strip());
    }

    /** The page's misspelt property, as the start says it (where it was set aside: here, the command line). */
    @Test
    void failedStartSample_misspeltProperty_isWhatTheStartSays(CapturedOutput output) throws IOException {
        String sample = inlineSample("A misspelt property: `");

        assertThatThrownBy(() -> start("--sluice.store-timout=50ms")).isNotNull();

        assertThat(withoutSource(output.getOut())).contains(withoutSource(sample));
    }

    /** The page's value Sluice cannot use, as the start says it. */
    @Test
    void failedStartSample_invalidValue_isWhatTheStartSays(CapturedOutput output) throws IOException {
        String sample = inlineSample("naming the property: `");

        assertThatThrownBy(() -> start("--sluice.store-timeout=0s")).isNotNull();

        assertThat(output.getOut()).contains(sample);
    }

    private static void start(String... arguments) {
        new SpringApplicationBuilder(LimitedApplication.class).properties("server.port=0").run(arguments).close();
    }

    /** The rules file of the page's quick start: its first {@code json} block. */
    private static String quickStartRules() {
        return BLOCKS.stream().filter(block -> block.tag().equals("json")).findFirst().orElseThrow().text();
    }

    /** The page's inline sample that follows {@code introduction}, up to its closing backtick, on one line. */
    private static String inlineSample(String introduction) throws IOException {
        String page = Files.readString(PAGE);
        int start = page.indexOf(introduction);
        assertThat(start).as("the page's sample after '" + introduction + "'").isNotNegative();
        start += introduction.length();
        return page.substring(start, page.indexOf('`', start)).replaceAll("\\s*\\n\\s*", " ");
    }

    /** {@code text} without the "(set in ...)" of a misspelt property, which says where the application set it. */
    private static String withoutSource(String text) {
        return text.replaceAll("\\(set in [^)]*\\)", "(set in ...)");
    }

    private static Properties properties(MarkdownBlock block) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(block.text()));
        return properties;
    }

    private interface Check {
        void run(MarkdownBlock block) throws Exception;
    }

    private static Stream<DynamicTest> blocks(String tag, Check check) {
        List<MarkdownBlock> tagged = BLOCKS.stream().filter(block -> block.tag().equals(tag)).toList();
        assertThat(tagged).as("the page's " + tag + " blocks").isNotEmpty();
        return tagged.stream().map(block -> DynamicTest.dynamicTest(block.where() + " " + tag,
                () -> check.run(block)));
    }
}
