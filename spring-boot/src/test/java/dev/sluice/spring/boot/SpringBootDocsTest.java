package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.docs.JavaExample;
import dev.sluice.docs.MarkdownBlock;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * The Spring blocks of {@code docs/spring-boot.md}, which the documentation test of the demo leaves to this module:
 * {@code java} blocks compile against this module's test class path (Spring, the starter), and every {@code sluice.*}
 * property of a {@code properties} block is one Sluice knows and binds.
 */
class SpringBootDocsTest {

    private static final List<MarkdownBlock> BLOCKS = MarkdownBlock.read(Path.of("../docs/spring-boot.md"));

    @TestFactory
    Stream<DynamicTest> javaBlocks_compileAgainstSpringAndTheStarter() {
        return blocks("java", JavaExample::assertCompiles);
    }

    @TestFactory
    Stream<DynamicTest> propertiesBlocks_sluicePropertiesKnownAndBound() {
        return blocks("properties", block -> {
            Properties properties = new Properties();
            properties.load(new StringReader(block.text()));
            Map<String, String> sluice = new HashMap<>();
            properties.stringPropertyNames().stream().filter(name -> name.startsWith("sluice."))
                    .forEach(name -> sluice.put(name, properties.getProperty(name)));
            assertThat(sluice).as(block.where() + ": a sluice.* property").isNotEmpty();
            List<SluicePropertyNames.Name> known = SluicePropertyNames.known();
            assertThat(sluice.keySet()).as(block.where()).allSatisfy(name ->
                    assertThat(SluicePropertyNames.knownOrNotOurs(name, known)).as(name + " known").isTrue());
            assertThat(new Binder(new MapConfigurationPropertySource(sluice)).bind("sluice", SluiceProperties.class)
                    .isBound()).as(block.where() + " binds").isTrue();
        });
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
