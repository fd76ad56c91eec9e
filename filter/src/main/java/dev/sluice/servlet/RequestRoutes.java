package dev.sluice.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the application behind the filter routes a request: the handler method a framework's router will call, and the
 * path parameters it matched, for rules from {@code @RateLimited} annotations (which match by method, and may key by
 * a path parameter). A framework supplies it, such as the Spring MVC binding; the filter asks at most once per
 * request, and only while some rule in force matches by method. Implementations are thread-safe and leave the request
 * as they found it.
 */
@FunctionalInterface
public interface RequestRoutes {

    /** No router known: annotation rules match nothing. */
    RequestRoutes NONE = request -> Optional.empty();

    /** The route of {@code request}; empty when no handler method takes it. Never throws for a request. */
    Optional<Route> route(HttpServletRequest request);

    /**
     * A request's route.
     *
     * @param method the handler method, as {@code AnnotationRules} sees it on the handler's class
     * @param pathParameters the path parameters the router matched, by name, decoded
     */
    record Route(Method method, Map<String, String> pathParameters) {

        public Route {
            Objects.requireNonNull(method, "method");
            pathParameters = Map.copyOf(pathParameters);
        }
    }
}
