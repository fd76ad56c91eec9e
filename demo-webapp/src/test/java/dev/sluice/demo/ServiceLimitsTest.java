package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.algorithm.Algorithm;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ServiceLimitsTest {

    @Test
    void parse_limitsById_onTheSteppedSlidingWindow() {
        ServiceLimits limits = ServiceLimits.parse("limits.json", """
                {"limits": {"partner-api": {"permits": 10, "period": "1m"}}}""");

        ServiceLimits.ServiceLimit partner = limits.find("partner-api").orElseThrow();
        assertThat(partner.policy().algorithm()).isEqualTo(Algorithm.STEPPED_SLIDING_WINDOW);
        assertThat(partner.limit().permits()).isEqualTo(10);
        assertThat(partner.limit().period()).isEqualTo(Duration.ofMinutes(1));
        assertThat(partner.counterKey()).isEqualTo("limiter-service|partner-api|10/PT1M");
        assertThat(limits.find("other")).isEmpty();
    }

    @Test
    void parse_badPeriod_namesTheFileAndTheLimit() {
        assertThatThrownBy(() -> ServiceLimits.parse("limits.json", """
                {"limits": {"partner-api": {"permits": 10, "period": "a minute"}}}"""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limits.json: limits.partner-api.period: expected a duration such as \"10s\", \"5m\", "
                        + "\"1h\" or \"PT1M\", got \"a minute\"");
    }

    @Test
    void parse_unknownFieldOrZeroPermits_rejected() {
        assertThatThrownBy(() -> ServiceLimits.parse("limits.json", """
                {"limits": {"a": {"permits": 1, "period": "1s", "burst": 2}}}"""))
                .hasMessageStartingWith("limits.json: ").hasMessageContaining("burst");
        assertThatThrownBy(() -> ServiceLimits.parse("limits.json", """
                {"limits": {"a": {"permits": 0, "period": "1s"}}}"""))
                .hasMessageStartingWith("limits.json: limits.a: ");
        assertThatThrownBy(() -> ServiceLimits.parse("limits.json", "{\"limits\": {}}"))
                .hasMessage("limits.json: expected a non-empty \"limits\" object");
    }
}
