package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.annotation.RateLimited;
import dev.sluice.console.ConsoleRecorder;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.metrics.MicrometerDecisionMetrics;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.spring.boot.actuate.SluiceActuatorAutoConfiguration;
import dev.sluice.spring.boot.actuate.SluiceEndpoint;
import dev.sluice.spring.boot.actuate.SluiceHealthIndicator;
import dev.sluice.spring.boot.console.SluiceConsoleAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.glassfish.jersey.servlet.ServletContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The auto-configuration's conditions, one at a time, in contexts made by Spring Boot's context runners (a servlet
 * web context without a server): what registers the filter, which store it counts in, what adds meters, health, the
 * endpoint and the console. Contexts with a Hazelcast member are in {@code HazelcastStoreConditionsTest}.
 */
class SluiceAutoConfigurationTest {

    private final WebApplicationContextRunner web = new WebApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(SluiceAutoConfiguration.class, SluiceActuatorAutoConfiguration.class,
                    SluiceConsoleAutoConfiguration.class));

    @Test
    void webApplication_filterStartedAndRegisteredAfterSpringSecurity() {
        web.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RateLimitFilter.class);
            @SuppressWarnings("unchecked")
            FilterRegistrationBean<RateLimitFilter> registration = context.getBean(FilterRegistrationBean.class);
            assertThat(registration.getOrder()).isEqualTo(-99);
            assertThat(registration.isAsyncSupported()).isTrue();
            assertThat(registration.getUrlPatterns()).containsExactly("/*");
            assertThat(context.getBean(RateLimitFilter.class).status().store()).isEqualTo("local");
        });
    }

    @Test
    void filterOrder_followsSpringSecuritysOrder_orTheSluiceProperty() {
        web.withPropertyValues("spring.security.filter.order=10").run(context ->
                assertThat(context.getBean(FilterRegistrationBean.class).getOrder()).isEqualTo(11));
        web.withPropertyValues("sluice.filter-order=-500").run(context ->
                assertThat(context.getBean(FilterRegistrationBean.class).getOrder()).isEqualTo(-500));
    }

    @Test
    void beforeSecurityRules_secondFilterRegisteredBeforeTheChain_inTheSameStore() {
        web.withPropertyValues("sluice.before-security.rules=classpath:before-security-rules.json",
                "spring.security.filter.order=10").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RateLimitFilter.class);
            BeforeSecurityFilter before = context.getBean(BeforeSecurityFilter.class);
            assertThat(context.getBeansOfType(FilterRegistrationBean.class).values())
                    .extracting(FilterRegistrationBean::getFilterName, FilterRegistrationBean::getOrder)
                    .containsExactlyInAnyOrder(tuple("sluice", 11), tuple("sluice-before-security", 9));
            assertThat(before.filter().rules().get().rules()).extracting(rule -> rule.id())
                    .containsExactly("login-attempts", "credential-checks", "held-one-at-a-time");
            assertThat(before.filter().store()).isSameAs(context.getBean(RateLimitFilter.class).store());
        });
        web.run(context -> assertThat(context).doesNotHaveBean(BeforeSecurityFilter.class));
    }

    @Test
    void beforeSecurityRulesWithAnIdOfTheRulesAfter_refusedNamingIt() {
        web.withPropertyValues("sluice.before-security.rules=classpath:before-security-rules.json",
                "sluice.rules=classpath:before-security-rules.json").run(context ->
                assertThat(sluiceFailure(context)).hasMessageStartingWith("Rules [login-attempts, credential-checks,"
                        + " held-one-at-a-time] are both before Spring Security (sluice.before-security.rules) and"
                        + " after it"));
    }

    @Test
    void beforeSecurityRulesMissingOrEmpty_refusedNamingTheFileOrTheProperty() {
        web.withPropertyValues("sluice.before-security.rules=classpath:no-such-rules.json").run(context ->
                assertThat(sluiceFailure(context)).hasMessage("Sluice's filter before Spring Security cannot start:"
                        + " init-param 'rules': no resource at classpath:no-such-rules.json"));
        web.withPropertyValues("sluice.before-security.rules=").run(context ->
                assertThat(sluiceFailure(context)).hasMessage("property 'sluice.before-security.rules' is empty"));
    }

    @Test
    void notAWebApplication_noFilter() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SluiceAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitFilter.class));
    }

    @Test
    void disabled_noFilterNoHealthNoConsole() {
        web.withPropertyValues("sluice.enabled=false", "sluice.console.token=0123456789abcdef0123")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitFilter.class)
                        .doesNotHaveBean(SluiceHealthIndicator.class).doesNotHaveBean(ConsoleRecorder.class));
    }

    @Test
    void noHazelcastOnTheClassPath_countsLocally() {
        web.withClassLoader(new FilteredClassLoader(HazelcastInstance.class, HazelcastCounterStore.class))
                .run(context -> assertThat(context.getBean(RateLimitFilter.class).status().store())
                        .isEqualTo("local"));
    }

    @Test
    void hazelcastOnTheClassPathWithoutAnInstanceBean_countsLocally() {
        web.run(context -> assertThat(context).doesNotHaveBean(HazelcastCounterStore.class)
                .getBean(RateLimitFilter.class).extracting(filter -> filter.status().store()).isEqualTo("local"));
    }

    /** Spring Boot 4 without its Hazelcast module, org.springframework.boot:spring-boot-hazelcast. */
    private static final FilteredClassLoader WITHOUT_BOOTS_HAZELCAST =
            new FilteredClassLoader("org.springframework.boot.hazelcast.");

    @Test
    void hazelcastConfigPropertyWithoutBootsHazelcastModule_refusedNamingTheModule() {
        web.withClassLoader(WITHOUT_BOOTS_HAZELCAST)
                .withPropertyValues("spring.hazelcast.config=classpath:members.yaml").run(context -> {
                    SluiceConfigurationException failure = sluiceFailure(context);
                    assertThat(failure).hasMessage("The application has Hazelcast and a Hazelcast configuration"
                            + " (spring.hazelcast.config=classpath:members.yaml), but no HazelcastInstance: Spring Boot"
                            + " 4 makes one only with its module org.springframework.boot:spring-boot-hazelcast, which"
                            + " is not on the class path. Sluice would count in this JVM alone.");
                    assertThat(failure.action()).startsWith("Add org.springframework.boot:spring-boot-hazelcast");
                });
    }

    @Test
    void hazelcastConfigBeanWithoutBootsHazelcastModule_refusedNamingTheModule() {
        web.withClassLoader(WITHOUT_BOOTS_HAZELCAST).withBean(Config.class, Config::new).run(context ->
                assertThat(sluiceFailure(context)).hasMessageContaining("(a com.hazelcast.config.Config bean)")
                        .hasMessageContaining("org.springframework.boot:spring-boot-hazelcast"));
    }

    @Test
    void hazelcastYamlOnTheClassPathWithoutBootsHazelcastModule_refusedNamingTheModule(@TempDir Path dir)
            throws IOException {
        Files.writeString(dir.resolve("hazelcast.yaml"), "hazelcast:\n  cluster-name: orders\n");
        try (URLClassLoader withYaml = new URLClassLoader(new URL[] {dir.toUri().toURL()}, WITHOUT_BOOTS_HAZELCAST)) {
            web.withClassLoader(withYaml).run(context -> assertThat(sluiceFailure(context))
                    .hasMessageContaining("(classpath:/hazelcast.yaml)")
                    .hasMessageContaining("org.springframework.boot:spring-boot-hazelcast"));
        }
    }

    @Test
    void hazelcastConfigWithoutBootsHazelcastModule_storeLocal_startsCountingLocallyWithoutAWord() {
        web.withClassLoader(WITHOUT_BOOTS_HAZELCAST).withBean(Config.class, Config::new)
                .withPropertyValues("sluice.store=local").run(context -> assertThat(context).hasNotFailed()
                        .getBean(RateLimitFilter.class).extracting(filter -> filter.status().store())
                        .isEqualTo("local"));
    }

    @Test
    void hazelcastConfigWithBootsHazelcastModuleButNoInstance_refusedSayingItMadeNone() {
        web.withPropertyValues("spring.hazelcast.config=classpath:members.yaml").run(context ->
                assertThat(sluiceFailure(context)).hasMessageContaining("but no HazelcastInstance: Spring Boot's"
                        + " Hazelcast auto-configuration (org.springframework.boot.hazelcast.autoconfigure"
                        + ".HazelcastAutoConfiguration) made none."));
    }

    @Test
    void storeHazelcastInstanceWithoutAnInstance_refusesToStartSayingSo() {
        web.withPropertyValues("sluice.store=hazelcast-instance").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().isInstanceOf(SluiceConfigurationException.class)
                .hasMessageContaining("sluice.store is hazelcast-instance, but Sluice found no single"
                        + " HazelcastInstance to count in (it has none)"));
    }

    @Test
    void storeSettingsWithoutAProvider_refusedNamingBoth() {
        web.withPropertyValues("sluice.store-settings.hazelcast-members=10.0.0.1").run(context ->
                assertThat(context).getFailure().rootCause().isInstanceOf(SluiceConfigurationException.class)
                        .hasMessageContaining("sluice.store-settings (hazelcast-members) is set, but sluice.store is"
                                + " 'auto'"));
    }

    @Test
    void meterRegistryBean_decisionMetersOnIt() {
        web.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context ->
                assertThat(context).hasSingleBean(MicrometerDecisionMetrics.class));
        web.withBean(MeterRegistry.class, SimpleMeterRegistry::new).withPropertyValues("sluice.metrics=none")
                .run(context -> assertThat(context).doesNotHaveBean(MicrometerDecisionMetrics.class));
        web.run(context -> assertThat(context).doesNotHaveBean(MicrometerDecisionMetrics.class));
    }

    @Test
    void actuator_healthAndEndpointBeans_offByTheirManagementProperties() {
        web.withPropertyValues("management.endpoints.web.exposure.include=sluice").run(context -> assertThat(context)
                .hasSingleBean(SluiceHealthIndicator.class).hasSingleBean(SluiceEndpoint.class));
        web.withPropertyValues("management.endpoints.web.exposure.include=sluice",
                        "management.health.sluice.enabled=false", "management.endpoint.sluice.access=NONE")
                .run(context -> assertThat(context).doesNotHaveBean(SluiceHealthIndicator.class)
                        .doesNotHaveBean(SluiceEndpoint.class));
    }

    @Test
    void console_mountedOnlyWithATokenOrRoleAndJersey() {
        web.run(context -> assertThat(context).doesNotHaveBean(ServletRegistrationBean.class)
                .doesNotHaveBean(ConsoleRecorder.class));
        web.withPropertyValues("sluice.console.role=ops").run(context -> assertThat(context)
                .hasSingleBean(ServletRegistrationBean.class).hasSingleBean(ConsoleRecorder.class));
        web.withPropertyValues("sluice.console.token=0123456789abcdef0123")
                .withClassLoader(new FilteredClassLoader(ServletContainer.class))
                .run(context -> assertThat(context).doesNotHaveBean(ServletRegistrationBean.class));
    }

    @Test
    void consoleTokenTooShort_refusedNamingTheProperty() {
        web.withPropertyValues("sluice.console.token=short").run(context -> assertThat(sluiceFailure(context))
                .hasMessageContaining("property 'sluice.console.token'"));
    }

    @Test
    void annotatedController_itsRulesInForce() {
        web.withUserConfiguration(AnnotatedController.class).run(context -> {
            assertThat(context.getBean(SpringMvcHandlers.class).rules()).extracting(rule -> rule.id())
                    .containsExactly("limited-greeting");
            RateLimitFilter filter = context.getBean(RateLimitFilter.class);
            assertThat(filter.status().rulesSource()).startsWith("annotations");
            assertThat(filter.rules().get().rule("limited-greeting")).isPresent();
        });
    }

    @Test
    void misspeltProperty_refusedNamingTheNearestName() {
        web.withPropertyValues("sluice.store-timout=50ms").run(context -> assertThat(context).getFailure()
                .rootCause().isInstanceOf(SluiceConfigurationException.class)
                .hasMessageStartingWith("property 'sluice.store-timout' is not a Sluice property (set in")
                .hasMessageContaining("did you mean 'sluice.store-timeout'?"));
    }

    @Test
    void invalidPropertyValue_refusedNamingTheProperty() {
        web.withPropertyValues("sluice.store-timeout=0s").run(context -> assertThat(sluiceFailure(context))
                .hasMessageContaining("property 'sluice.store-timeout': must be positive, got 'PT0S'"));
    }

    @Test
    void ipv6Prefix_keysIpv6ClientsByItOrIsRefusedNamingTheProperty() {
        web.withPropertyValues("sluice.ipv6-prefix=56").run(context -> assertThat(context.getBean(RateLimitFilter.class)
                .rules().get().toString()).contains("IPv6 clients by /56"));
        web.withPropertyValues("sluice.ipv6-prefix=129").run(context -> assertThat(sluiceFailure(context))
                .hasMessageContaining("property 'sluice.ipv6-prefix': must be from 1 to 128, got '129'"));
    }

    /** The {@link SluiceConfigurationException} among the causes of the context's failure to start. */
    static SluiceConfigurationException sluiceFailure(ApplicationContext context) {
        Throwable cause = ((AssertableWebApplicationContext) context).getStartupFailure();
        while (cause != null && !(cause instanceof SluiceConfigurationException)) {
            cause = cause.getCause();
        }
        assertThat(cause).as("a SluiceConfigurationException among the causes").isNotNull();
        return (SluiceConfigurationException) cause;
    }

    @Configuration(proxyBeanMethods = false)
    static class AnnotatedController {

        @Bean
        Greeting greeting() {
            return new Greeting();
        }
    }

    @RestController
    static class Greeting {

        @GetMapping("/greeting")
        @RateLimited(id = "limited-greeting", permits = 1, period = "1m")
        String greeting() {
            return "hi";
        }
    }
}
