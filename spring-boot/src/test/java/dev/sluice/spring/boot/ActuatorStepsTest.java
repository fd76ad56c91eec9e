package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.docs.MarkdownBlock;
import dev.sluice.spring.boot.testapp.LimitedApplication;
import java.io.IOException;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The actuator steps of {@code docs/spring-boot.md} as written: an application with Spring Boot's default health
 * settings (none of the tests' {@code application.properties}) answers {@code 404} at {@code /actuator/health/sluice},
 * as the page warns; with the page's {@code management.*} block it answers Sluice's health, and
 * {@code /actuator/sluice} the endpoint.
 */
class ActuatorStepsTest {

    /** No {@code application.properties} of the tests: Spring Boot's defaults. */
    private static final String DEFAULTS = "--spring.config.name=no-such-configuration";

    private final List<ConfigurableApplicationContext> applications = new ArrayList<>();

    @AfterEach
    void stop() {
        applications.forEach(ConfigurableApplicationContext::close);
    }

    private Http start(List<String> arguments) {
        ConfigurableApplicationContext application = new SpringApplicationBuilder(LimitedApplication.class)
                .properties("server.port=0").run(arguments.toArray(String[]::new));
        applications.add(application);
        return new Http(((WebServerApplicationContext) application).getWebServer().getPort());
    }

    @Test
    void springBootsDefaultHealthSettings_sluiceComponentIs404() {
        Http http = start(List.of(DEFAULTS));

        assertThat(http.get("/actuator/health/sluice", "192.0.2.1").statusCode()).isEqualTo(404);
        HttpResponse<String> overall = http.get("/actuator/health", "192.0.2.1");
        assertThat(overall.statusCode()).isEqualTo(200);
        assertThat(overall.body()).as("the overall status alone").contains("\"status\":\"UP\"")
                .doesNotContain("sluice");
    }

    @Test
    void thePagesActuatorSettings_healthAndEndpointAnswer() throws IOException {
        List<String> arguments = new ArrayList<>(List.of(DEFAULTS));
        Properties page = actuatorBlock();
        page.stringPropertyNames().forEach(name -> arguments.add("--" + name + "=" + page.getProperty(name)));
        Http http = start(arguments);

        HttpResponse<String> health = http.get("/actuator/health/sluice", "192.0.2.2");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"", "\"store\":\"local\"", "\"mapWarnings\":[]");
        HttpResponse<String> endpoint = http.get("/actuator/sluice", "192.0.2.2");
        assertThat(endpoint.statusCode()).isEqualTo(200);
        assertThat(endpoint.body()).contains("\"id\":\"hello\"");
    }

    /** The page's {@code properties} block of health settings. */
    private static Properties actuatorBlock() throws IOException {
        MarkdownBlock block = SpringBootDocsTest.BLOCKS.stream()
                .filter(candidate -> candidate.tag().equals("properties")
                        && candidate.text().contains("management.endpoint.health.show-components"))
                .findFirst().orElseThrow();
        Properties properties = new Properties();
        properties.load(new StringReader(block.text()));
        return properties;
    }
}
