package dev.sluice.spring.boot.actuate;

import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.spring.boot.SluiceAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Sluice's health contributor and endpoint, when the application has Spring Boot's actuator and Sluice's filter:
 * {@code management.health.sluice.enabled} and {@code management.endpoint.sluice.*} turn them off and on as any other.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnBean(RateLimitFilter.class)
public final class SluiceActuatorAutoConfiguration {

    SluiceActuatorAutoConfiguration() {
    }

    /** The health contributor {@code sluice}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ConditionalOnEnabledHealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("sluice")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "sluiceHealthIndicator")
        SluiceHealthIndicator sluiceHealthIndicator(RateLimitFilter sluiceFilter) {
            return new SluiceHealthIndicator(sluiceFilter);
        }
    }

    /** The endpoint {@code sluice}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
    @ConditionalOnAvailableEndpoint(SluiceEndpoint.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        SluiceEndpoint sluiceEndpoint(RateLimitFilter sluiceFilter) {
            return new SluiceEndpoint(sluiceFilter);
        }
    }
}
