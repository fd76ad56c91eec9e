package dev.sluice.spring.boot;

import dev.sluice.rules.Rule;
import dev.sluice.servlet.RequestRoutes;
import java.util.List;

/**
 * The rules of an application's {@code @RateLimited} request handlers and where its requests are routed, for the
 * filter ({@link dev.sluice.servlet.FilterSettings.Builder#annotated}). Spring MVC's is {@link SpringMvcHandlers}.
 */
interface AnnotatedHandlers {

    /** The handlers' rules ({@code AnnotationRules}). */
    List<Rule> rules();

    /** Where a request is routed. */
    RequestRoutes routes();
}
