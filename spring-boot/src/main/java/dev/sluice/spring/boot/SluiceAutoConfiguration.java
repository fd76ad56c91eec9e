package dev.sluice.spring.boot;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.metrics.MicrometerDecisionMetrics;
import dev.sluice.rules.Rule;
import dev.sluice.servlet.FilterSettings;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.store.CounterStore;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.web.servlet.DispatcherServlet;

/*
 * Why the filter starts here, in a bean, and not in the container's Filter.init: a container only logs a filter that
 * fails to start and goes on without it (or stops with "context failed to start", the cause lost), while an exception
 * from a bean stops the application's start with the cause in the chain, where the failure analyzers find it. The
 * filter's init then publishes what started in the servlet context, as it does under web.xml.
 */

/**
 * Limits every request of a servlet web application: registers Sluice's servlet filter, set up from
 * {@link SluiceProperties}, after Spring Security's filter chain, counting in the application's HazelcastInstance (or
 * a {@link CounterStore} bean of its own) when it has one, with its {@code @RateLimited} Spring MVC handlers among the
 * rules, its meters on the application's {@code MeterRegistry}; and, with {@code sluice.before-security.rules}, a
 * second filter before the chain, with rules of its own, for what Spring Security answers itself (failed logins). Off
 * with {@code sluice.enabled=false}. See {@code docs/spring-boot.md}.
 */
@AutoConfiguration(afterName = {"org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RateLimitFilter.class)
@ConditionalOnProperty(prefix = SluicePropertyNames.PREFIX, name = "enabled", havingValue = "true",
        matchIfMissing = true)
@EnableConfigurationProperties(SluiceProperties.class)
public final class SluiceAutoConfiguration {

    /** The name of the filter, in its start line and the servlet context: {@value}. */
    public static final String FILTER_NAME = "sluice";

    /**
     * The order of Spring Security's filter chain unless {@code spring.security.filter.order} says otherwise: Spring
     * Boot's {@code SecurityFilterProperties.DEFAULT_FILTER_ORDER}, {@value}.
     */
    static final int SECURITY_FILTER_ORDER = -100;

    SluiceAutoConfiguration() {
    }

    /**
     * The filter, started: its rules read, its store opened.
     *
     * @throws dev.sluice.rules.RulesException for invalid rules
     * @throws SluiceConfigurationException for a property Sluice does not know or cannot use
     */
    @Bean(destroyMethod = "destroy")
    RateLimitFilter sluiceFilter(SluiceProperties properties, ConfigurableEnvironment environment,
                                 ResourceLoader resources, ListableBeanFactory beans,
                                 ObjectProvider<CounterStore> stores, ObjectProvider<DecisionMetrics> metrics,
                                 ObjectProvider<AnnotatedHandlers> handlers) {
        BootVersion.require4(SpringBootVersion.getVersion());
        SluicePropertyNames.requireKnown(environment);
        FilterSettings settings = SluiceFilterSettings.of(properties, environment, resources, beans, stores, metrics,
                handlers);
        RateLimitFilter filter = new RateLimitFilter(settings);
        try {
            filter.start(FILTER_NAME);
        } catch (IllegalArgumentException e) {
            throw new SluiceConfigurationException("Sluice's filter cannot start: " + e.getMessage(),
                    "Correct the sluice.* property the message names (docs/spring-boot.md lists them).", e);
        }
        return filter;
    }

    /**
     * Maps the filter: on every request (and its asynchronous dispatches, where a request waits for its slot or
     * permit), after Spring Security's filter chain unless {@code sluice.filter-order} says otherwise.
     */
    @Bean
    FilterRegistrationBean<RateLimitFilter> sluiceFilterRegistration(RateLimitFilter sluiceFilter,
                                                                     SluiceProperties properties,
                                                                     ConfigurableEnvironment environment) {
        FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(sluiceFilter);
        registration.setName(FILTER_NAME);
        Integer order = properties.getFilterOrder();
        registration.setOrder(order != null ? order : securityOrder(environment) + 1);
        registration.setAsyncSupported(true);
        registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
        registration.setUrlPatterns(properties.getUrlPatterns());
        return registration;
    }

    /**
     * The filter before Spring Security's filter chain, with the rules of {@code sluice.before-security.rules},
     * started, counting in the store of the filter after the chain.
     *
     * @throws dev.sluice.rules.RulesException for invalid rules
     * @throws SluiceConfigurationException for a value Sluice cannot use, or a rule id both rules files have
     */
    @Bean(destroyMethod = "destroy")
    @ConditionalOnProperty(prefix = SluicePropertyNames.PREFIX, name = "before-security.rules")
    BeforeSecurityFilter sluiceBeforeSecurityFilter(RateLimitFilter sluiceFilter, SluiceProperties properties,
                                                    ConfigurableEnvironment environment,
                                                    ObjectProvider<DecisionMetrics> metrics) {
        String rules = properties.getBeforeSecurity().getRules();
        if (rules == null || rules.isBlank()) {
            throw new SluiceConfigurationException("property 'sluice.before-security.rules' is empty",
                    "Name the rules file of the filter before Spring Security (classpath:..., file:... or a path on"
                            + " disk), or remove the property.");
        }
        RateLimitFilter filter = new RateLimitFilter(SluiceFilterSettings.beforeSecurity(rules, sluiceFilter.store(),
                properties, environment, metrics));
        try {
            filter.start(BeforeSecurityFilter.NAME);
        } catch (IllegalArgumentException e) {
            throw new SluiceConfigurationException("Sluice's filter before Spring Security cannot start: "
                    + e.getMessage(), "Correct sluice.before-security.rules or the sluice.* property the message"
                    + " names (docs/spring-boot.md lists them).", e);
        }
        Set<String> after = sluiceFilter.rules().get().rules().stream().map(Rule::id).collect(Collectors.toSet());
        List<String> both = filter.rules().get().rules().stream().map(Rule::id).filter(after::contains).toList();
        if (!both.isEmpty()) {
            filter.destroy();
            throw new SluiceConfigurationException("Rules " + both + " are both before Spring Security"
                    + " (sluice.before-security.rules) and after it (sluice.rules or @RateLimited): one id names one"
                    + " counter, which both filters would count.", "Give the rules before Spring Security ids of"
                    + " their own.");
        }
        return new BeforeSecurityFilter(filter);
    }

    /**
     * Maps the filter before Spring Security's filter chain ({@code spring.security.filter.order} - 1), on the paths,
     * dispatches and with the asynchronous support of the filter after it.
     */
    @Bean
    @ConditionalOnProperty(prefix = SluicePropertyNames.PREFIX, name = "before-security.rules")
    FilterRegistrationBean<BeforeSecurityFilter> sluiceBeforeSecurityFilterRegistration(
            BeforeSecurityFilter sluiceBeforeSecurityFilter, SluiceProperties properties,
            ConfigurableEnvironment environment) {
        FilterRegistrationBean<BeforeSecurityFilter> registration =
                new FilterRegistrationBean<>(sluiceBeforeSecurityFilter);
        registration.setName(BeforeSecurityFilter.NAME);
        registration.setOrder(securityOrder(environment) - 1);
        registration.setAsyncSupported(true);
        registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
        registration.setUrlPatterns(properties.getUrlPatterns());
        return registration;
    }

    /** The order of Spring Security's filter chain. */
    private static int securityOrder(ConfigurableEnvironment environment) {
        return environment.getProperty("spring.security.filter.order", Integer.class, SECURITY_FILTER_ORDER);
    }

    /** The application's HazelcastInstance as the store, unless {@code sluice.store} names another. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({HazelcastInstance.class, HazelcastCounterStore.class})
    @ConditionalOnSingleCandidate(HazelcastInstance.class)
    @ConditionalOnMissingBean(CounterStore.class)
    @Conditional(StoreIsTheInstance.class)
    static class HazelcastStoreConfiguration {

        /** The store on the instance, with the store's defaults; closed before Spring shuts the instance down. */
        @Bean(destroyMethod = "close")
        HazelcastCounterStore sluiceHazelcastStore(HazelcastInstance instance) {
            return HazelcastCounterStore.using(instance);
        }
    }

    /**
     * Matches while {@code sluice.store} is unset, {@code auto} or {@code hazelcast-instance}: a condition of its own,
     * not an expression, so that no application starts Spring's expression language for it.
     */
    static final class StoreIsTheInstance extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String store = context.getEnvironment().getProperty(SluicePropertyNames.PREFIX + ".store", "auto");
            String said = SluicePropertyNames.PREFIX + ".store is " + store;
            return store.equals("auto") || store.equals("hazelcast-instance")
                    ? ConditionOutcome.match(said) : ConditionOutcome.noMatch(said);
        }
    }

    /** Decision meters on the application's MeterRegistry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(MeterRegistry.class)
    @ConditionalOnProperty(prefix = SluicePropertyNames.PREFIX, name = "metrics", havingValue = "micrometer",
            matchIfMissing = true)
    static class MetricsConfiguration {

        @Bean
        MicrometerDecisionMetrics sluiceMicrometerMetrics(MeterRegistry registry) {
            return new MicrometerDecisionMetrics(registry);
        }
    }

    /** The {@code @RateLimited} handlers of Spring MVC. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(DispatcherServlet.class)
    static class SpringMvcConfiguration {

        @Bean
        SpringMvcHandlers sluiceSpringMvcHandlers(ListableBeanFactory beans) {
            return new SpringMvcHandlers(beans);
        }
    }
}
