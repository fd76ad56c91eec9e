package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * Every entry of the module's {@code META-INF/spring.factories} and auto-configuration {@code .imports} names a class
 * that exists, is what its key says, and is what Spring Boot loads: an entry renamed away is only logged by Spring
 * (a failure analyzer then silently lost), so this fails instead.
 */
class FactoriesTest {

    private static final String FACTORIES = "META-INF/spring.factories";

    @Test
    void springFactories_everyEntry_loadsAsItsKeysType() throws Exception {
        Properties factories = ownResource(FACTORIES);
        assertThat(factories.stringPropertyNames()).containsExactly(FailureAnalyzer.class.getName());
        for (String key : factories.stringPropertyNames()) {
            Class<?> type = Class.forName(key);
            List<String> entries = Arrays.stream(factories.getProperty(key).split(",")).map(String::trim).toList();
            assertThat(entries).as(key).isNotEmpty();
            for (String entry : entries) {
                assertThat(type.isAssignableFrom(Class.forName(entry))).as(entry + " is a " + key).isTrue();
            }
        }
    }

    @Test
    void springFactories_failureAnalyzers_areAmongThoseSpringBootLoads() throws Exception {
        // Spring Boot's own analyzers take the bean factory as they are made: left out here, as uninstantiable.
        List<String> loaded = SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class,
                        SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> { }))
                .stream().map(analyzer -> analyzer.getClass().getName()).toList();

        assertThat(loaded).contains(RulesFailureAnalyzer.class.getName(), SluiceFailureAnalyzer.class.getName());
    }

    @Test
    void autoConfigurationImports_everyEntry_isAnAutoConfigurationSpringBootFinds() throws Exception {
        List<String> ours = new ArrayList<>();
        for (String candidate : ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())) {
            if (candidate.startsWith("dev.sluice.")) {
                ours.add(candidate);
            }
        }

        assertThat(ours).containsExactly(SluiceAutoConfiguration.class.getName(),
                "dev.sluice.spring.boot.actuate.SluiceActuatorAutoConfiguration",
                "dev.sluice.spring.boot.console.SluiceConsoleAutoConfiguration");
        for (String entry : ours) {
            assertThat(Class.forName(entry).isAnnotationPresent(AutoConfiguration.class)).as(entry).isTrue();
        }
    }

    /** This module's own copy of {@code name} (not another jar's of the same name). */
    private static Properties ownResource(String name) throws IOException {
        URL here = FactoriesTest.class.getClassLoader().getResource("dev/sluice/spring/boot/SluiceAutoConfiguration"
                + ".class");
        assertThat(here).isNotNull();
        URL own = new URL(here.toString().replace("dev/sluice/spring/boot/SluiceAutoConfiguration.class", name));
        Properties properties = new Properties();
        try (InputStream in = own.openStream()) {
            properties.load(in);
        }
        return properties;
    }
}
