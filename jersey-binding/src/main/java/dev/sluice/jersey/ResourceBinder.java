package dev.sluice.jersey;

import dev.sluice.annotation.RateLimitExempt;
import dev.sluice.rules.AnnotationRules;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import java.lang.reflect.Method;

/**
 * Binds the rate-limit filter to the resource methods that may be limited: those with {@code @RateLimited} rules
 * (their own or their class's) and, when a rules file is configured, every method but those marked
 * {@link RateLimitExempt}.
 */
final class ResourceBinder implements DynamicFeature {

    private final Limiting limiting;

    ResourceBinder(Limiting limiting) {
        this.limiting = limiting;
    }

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        Class<?> resourceClass = resourceInfo.getResourceClass();
        Method routed = AnnotationRules.routedMethod(resourceClass, resourceInfo.getResourceMethod());
        if (routed.isAnnotationPresent(RateLimitExempt.class)) {
            return;
        }
        if (limiting.hasRulesFile() || !AnnotationRules.forMethod(resourceClass, routed).isEmpty()) {
            context.register(new ResourceRateLimitFilter(limiting, routed), RateLimitFeature.PRIORITY);
        }
    }
}
