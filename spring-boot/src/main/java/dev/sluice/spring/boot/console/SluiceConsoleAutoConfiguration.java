package dev.sluice.spring.boot.console;

import dev.sluice.console.Console;
import dev.sluice.console.ConsoleFeature;
import dev.sluice.console.ConsoleRecorder;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.spring.boot.SluiceAutoConfiguration;
import dev.sluice.spring.boot.SluiceConfigurationException;
import dev.sluice.spring.boot.SluiceProperties;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Mounts the cluster's console when {@code sluice-console} and Jersey's servlet container are on the class path and
 * {@code sluice.console.token} or {@code sluice.console.role} opens it: every instance records its decisions (the
 * recorder is among the filter's metrics) and publishes them into the store's cluster; this one serves the page and
 * JSON API at {@code sluice.console.path} ({@code /sluice/console/} by default) on a Jersey servlet of its own.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnClass({ConsoleFeature.class, ServletContainer.class, RateLimitFilter.class})
@ConditionalOnProperty(prefix = "sluice", name = "enabled", havingValue = "true", matchIfMissing = true)
@Conditional(SluiceConsoleAutoConfiguration.Opened.class)
public final class SluiceConsoleAutoConfiguration {

    SluiceConsoleAutoConfiguration() {
    }

    /**
     * Matches when {@code sluice.console.token} or {@code sluice.console.role} is set and not empty: a condition of
     * its own, not an expression, so that no application starts Spring's expression language for it.
     */
    static final class Opened extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Environment environment = context.getEnvironment();
            boolean token = !environment.getProperty("sluice.console.token", "").isEmpty();
            boolean role = !environment.getProperty("sluice.console.role", "").isEmpty();
            return token || role ? ConditionOutcome.match("sluice.console.token or role is set")
                    : ConditionOutcome.noMatch("neither sluice.console.token nor role is set");
        }
    }

    /** Records this instance's decisions; the filter reports to it as to its other metrics. */
    @Bean
    ConsoleRecorder sluiceConsoleRecorder() {
        return new ConsoleRecorder();
    }

    /** Publishes this instance's figures and sums the cluster's; closed with the application. */
    @Bean(destroyMethod = "close")
    @ConditionalOnBean(RateLimitFilter.class)
    Console sluiceConsole(RateLimitFilter sluiceFilter, ConsoleRecorder sluiceConsoleRecorder) {
        return Console.builder(sluiceFilter.store(), sluiceConsoleRecorder)
                .rules(sluiceFilter.rules(), sluiceFilter.status().rulesSource()).build();
    }

    /** The console's page and JSON API on a Jersey servlet at {@code sluice.console.path}. */
    @Bean
    @ConditionalOnBean(RateLimitFilter.class)
    ServletRegistrationBean<ServletContainer> sluiceConsoleServlet(Console sluiceConsole,
                                                                   SluiceProperties properties) {
        SluiceProperties.Console settings = properties.getConsole();
        ConsoleFeature.Builder feature = ConsoleFeature.builder(sluiceConsole);
        String token = settings.getToken();
        if (token != null && !token.isBlank()) {
            try {
                feature.operationsToken(token);
            } catch (IllegalArgumentException e) {
                throw new SluiceConfigurationException("property 'sluice.console.token': " + e.getMessage(),
                        "Give sluice.console.token at least 16 characters, such as those of `openssl rand -hex 16`.",
                        e);
            }
        }
        String role = settings.getRole();
        if (role != null && !role.isBlank()) {
            feature.operationsRole(role);
        }
        String path = settings.getPath().replaceAll("/+$", "");
        ServletRegistrationBean<ServletContainer> servlet = new ServletRegistrationBean<>(
                new ServletContainer(new ResourceConfig().register(feature.build())), path + "/*");
        servlet.setName("sluiceConsole");
        return servlet;
    }
}
