package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

class SluicePropertyNamesTest {

    @Test
    void known_areTheNamesOfTheGeneratedConfigurationMetadata() throws Exception {
        List<String> metadata = new ArrayList<>();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            for (JsonNode property : new ObjectMapper().readTree(in).path("properties")) {
                String name = property.path("name").asText();
                if (name.startsWith("sluice.")) {
                    metadata.add(name);
                }
                assertThat(property.path("description").asText()).as(name + " has Javadoc").isNotBlank();
            }
        }

        assertThat(SluicePropertyNames.known()).extracting(SluicePropertyNames.Name::text)
                .containsExactlyInAnyOrderElementsOf(metadata);
    }

    @Test
    void requireKnown_relaxedSpellingsListEntriesAndMapKeys_accepted() {
        assertThatNoException().isThrownBy(() -> SluicePropertyNames.requireKnown(environment(Map.of(
                "sluice.storeTimeout", "50ms", "sluice.store_timeout", "50ms", "sluice.trusted-proxies[0]", "10.0.0.1",
                "sluice.store-settings.hazelcast-members", "10.0.0.1", "sluice.console.token", "x",
                "other.thing", "y"))));
    }

    @Test
    void requireKnown_unknownName_refusedWithWhereItWasSetAndTheNearestName() {
        assertThatThrownBy(() -> SluicePropertyNames.requireKnown(environment(Map.of("sluice.failure-polcy", "allow"))))
                .isInstanceOf(SluiceConfigurationException.class)
                .hasMessageStartingWith("property 'sluice.failure-polcy' is not a Sluice property (set in test);"
                        + " did you mean 'sluice.failure-policy'? Known: ");
        assertThatThrownBy(() -> SluicePropertyNames.requireKnown(environment(Map.of("sluice.store.timeout", "1s"))))
                .as("below a plain property").isInstanceOf(SluiceConfigurationException.class);
    }

    @Test
    void requireKnown_environmentVariablesAndSystemProperties_leftOutAsSpringBootLeavesThemOut() {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of("SLUICE_SOMETHING", "1")));
        environment.getPropertySources().addFirst(new MapPropertySource(
                StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME, Map.of("sluice.build.flag", "true")));

        assertThatNoException().isThrownBy(() -> SluicePropertyNames.requireKnown(environment));
    }

    private static StandardEnvironment environment(Map<String, Object> properties) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
        return environment;
    }
}
