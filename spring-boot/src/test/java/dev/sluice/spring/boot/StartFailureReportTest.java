package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.spring.boot.testapp.LimitedApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * What a Spring user reads when Sluice stops the start: Spring Boot's "APPLICATION FAILED TO START" report, written
 * by Sluice's failure analyzers (found through {@code spring.factories}), from a real application's start.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartFailureReportTest {

    @Test
    void misspeltRulesFileField_reportNamesFileLineColumnFieldAndTheNearestAllowed(CapturedOutput output) {
        assertThatThrownBy(() -> start("sluice.rules=classpath:broken-rules.json")).isNotNull();

        assertThat(output).contains("APPLICATION FAILED TO START", "Sluice's rules are invalid:",
                "classpath:broken-rules.json:6:16: $.rules[0].limit: unknown field \"limit\"; did you mean"
                        + " \"limits\"? Expected one of id, match, key, limits,",
                "Action:", "Correct the rules file (sluice.rules");
    }

    @Test
    void misspeltProperty_reportNamesWhereItWasSetAndTheNearestName(CapturedOutput output) {
        assertThatThrownBy(() -> start("sluice.store-timout=50ms")).isNotNull();

        assertThat(output).contains("APPLICATION FAILED TO START",
                "property 'sluice.store-timout' is not a Sluice property (set in",
                "did you mean 'sluice.store-timeout'?", "Action:", "Correct or remove 'sluice.store-timout'");
    }

    @Test
    void annotationMistake_reportNamesTheClassAndMethod(CapturedOutput output) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(LimitedApplication.class, BadAnnotation.class)
                .properties("server.port=0").run()).isNotNull();

        assertThat(output).contains("Sluice's rules are invalid:", BadAnnotation.Handler.class.getName() + "#bad",
                "period: expected a duration");
    }

    private static void start(String property) {
        new SpringApplicationBuilder(LimitedApplication.class).properties("server.port=0", property).run().close();
    }

    /** A controller whose annotation cannot be read. */
    static class BadAnnotation {

        @org.springframework.context.annotation.Bean
        Handler badHandler() {
            return new Handler();
        }

        @org.springframework.web.bind.annotation.RestController
        static class Handler {
            @org.springframework.web.bind.annotation.GetMapping("/bad")
            @dev.sluice.annotation.RateLimited(permits = 1, period = "1 hour")
            String bad() {
                return "bad";
            }
        }
    }
}
