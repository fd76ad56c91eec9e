package dev.sluice.spring.boot;

import dev.sluice.rules.AnnotationRules;
import dev.sluice.rules.Rule;
import dev.sluice.servlet.RequestRoutes;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletMapping;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.MappingMatch;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.handler.AbstractHandlerMethodMapping;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.util.ServletRequestPathUtils;

/*
 * Why the filter looks the route up itself rather than an interceptor counting after DispatcherServlet has: one
 * evaluation per request then covers the rules file and the annotations together, all or nothing across both, in the
 * filter that can hold a request for its slot or its permit without a thread; an interceptor would count the
 * annotations apart from the file's rules and block a thread to wait. The lookup is DispatcherServlet's own (its
 * handler mappings, in its order) on a view of the request whose attribute changes stay in the view, and it happens
 * only for requests to an application with annotation rules (RuleSet asks for the route only then).
 * Requests no annotated handler's mapping matches are not looked up at all: docs/design/adapters.md says why that
 * loses no route.
 */

/**
 * The {@code @RateLimited} handlers of a Spring MVC application: the rules of every {@code @Controller} bean's class
 * ({@link AnnotationRules}, as the Jersey binding reads its resource classes, non-public methods too), and the handler
 * method a request will reach, found through the application's {@link HandlerMapping}s as {@code DispatcherServlet}
 * finds it, for the requests an annotated handler can serve (the others have no route a rule matches). Handlers
 * registered after the first request are not seen. Thread-safe.
 */
final class SpringMvcHandlers implements AnnotatedHandlers, RequestRoutes {

    private final ListableBeanFactory beans;
    private final List<Rule> rules;
    /** The handler mappings and the annotated handlers' mappings, found on the first request (beans made later). */
    private volatile @Nullable Lookup lookup;

    /**
     * Reads the annotations of the application's controllers now.
     *
     * @throws dev.sluice.rules.RulesException for a mistaken annotation, naming its class and method
     */
    SpringMvcHandlers(ListableBeanFactory beans) {
        this.beans = beans;
        Set<Class<?>> controllers = new LinkedHashSet<>();
        for (String name : beans.getBeanNamesForAnnotation(Controller.class)) {
            Class<?> type = beans.getType(name);
            if (type != null) {
                controllers.add(ClassUtils.getUserClass(type));
            }
        }
        List<Rule> found = new ArrayList<>();
        for (Class<?> controller : controllers) {
            // Every method, not only the public ones AnnotationRules.forClass reads: Spring MVC handlers need not be.
            found.addAll(AnnotationRules.forMethods(controller, List.of(
                    ReflectionUtils.getUniqueDeclaredMethods(controller, ReflectionUtils.USER_DECLARED_METHODS))));
        }
        this.rules = List.copyOf(found);
    }

    @Override
    public List<Rule> rules() {
        return rules;
    }

    @Override
    public RequestRoutes routes() {
        return this;
    }

    @Override
    public Optional<Route> route(HttpServletRequest request) {
        try {
            Lookup known = lookup();
            if (!known.mayMatchPath(request)) {
                return Optional.empty();
            }
            LookupRequest view = new LookupRequest(request);
            ServletRequestPathUtils.parseAndCache(view);
            if (!known.mayServeAnnotated(view)) {
                return Optional.empty();
            }
            for (HandlerMapping mapping : known.mappings()) {
                HandlerExecutionChain chain = mapping.getHandler(view);
                if (chain != null) {
                    return chain.getHandler() instanceof HandlerMethod handler ? Optional.of(route(handler, view))
                            : Optional.empty();
                }
            }
        } catch (Exception noHandler) {
            // The dispatcher answers such a request itself (405, 406, 415...): no handler method, so no route.
        }
        return Optional.empty();
    }

    private static Route route(HandlerMethod handler, LookupRequest lookup) {
        Object variables = lookup.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
        Map<String, String> pathParameters = new HashMap<>();
        if (variables instanceof Map<?, ?> matched) {
            matched.forEach((name, value) -> {
                if (name instanceof String text && value instanceof String string) {
                    pathParameters.put(text, string);
                }
            });
        }
        return new Route(AnnotationRules.routedMethod(handler.getBeanType(), handler.getMethod()), pathParameters);
    }

    private Lookup lookup() {
        Lookup known = lookup;
        if (known == null) {
            List<HandlerMapping> found = new ArrayList<>(
                    BeanFactoryUtils.beansOfTypeIncludingAncestors(beans, HandlerMapping.class, true, false).values());
            AnnotationAwareOrderComparator.sort(found);
            known = Lookup.of(found, annotatedMethods());
            lookup = known;
        }
        return known;
    }

    private Set<Method> annotatedMethods() {
        Set<Method> methods = new HashSet<>();
        rules.forEach(rule -> methods.addAll(rule.match().resourceMethods()));
        return methods;
    }

    /**
     * The handler mappings in {@code DispatcherServlet}'s order, and the request mappings of the annotated handlers
     * that screen a request before they are asked ({@code screened} false: every request is looked up), first by the
     * literal starts of their path patterns ({@code prefixes}).
     */
    private record Lookup(List<HandlerMapping> mappings, List<RequestMappingInfo> annotated, List<String> prefixes,
                          boolean screened) {

        static Lookup of(List<HandlerMapping> mappings, Set<Method> annotatedMethods) {
            List<RequestMappingInfo> annotated = new ArrayList<>();
            Set<String> prefixes = new LinkedHashSet<>();
            boolean screened = true;
            for (HandlerMapping mapping : mappings) {
                if (mapping instanceof AbstractHandlerMethodMapping<?> methods) {
                    for (Map.Entry<?, HandlerMethod> entry : methods.getHandlerMethods().entrySet()) {
                        HandlerMethod handler = entry.getValue();
                        if (annotatedMethods.contains(
                                AnnotationRules.routedMethod(handler.getBeanType(), handler.getMethod()))) {
                            if (entry.getKey() instanceof RequestMappingInfo info
                                    && info.getPathPatternsCondition() != null) {
                                annotated.add(info);
                                info.getPatternValues().forEach(pattern -> prefixes.add(literalStart(pattern)));
                            } else {
                                screened = false;
                            }
                        }
                    }
                }
            }
            return new Lookup(List.copyOf(mappings), List.copyOf(annotated), List.copyOf(prefixes), screened);
        }

        /** What every path {@code pattern} matches starts with: the pattern up to its first variable or wildcard. */
        private static String literalStart(String pattern) {
            int end = 0;
            while (end < pattern.length() && "{*?".indexOf(pattern.charAt(end)) < 0) {
                end++;
            }
            return pattern.substring(0, end);
        }

        /**
         * Whether the request's path may match an annotated handler's pattern: it starts with one's literal start
         * (ignoring case, as a case-insensitive parser would), or it is one only Spring's own parse can read (encoded,
         * with path parameters, empty or dot segments, behind a servlet path, included). A screen cheaper than that
         * parse, and never narrower: docs/design/adapters.md.
         */
        boolean mayMatchPath(HttpServletRequest request) {
            HttpServletMapping mapping = request.getHttpServletMapping();
            if (!screened || request.getAttribute(RequestDispatcher.INCLUDE_REQUEST_URI) != null || mapping == null
                    || mapping.getMappingMatch() == MappingMatch.PATH) {
                return true;
            }
            String uri = request.getRequestURI();
            String context = request.getContextPath();
            if (!uri.startsWith(context)) {
                return true;
            }
            String path = uri.substring(context.length());
            if (path.isEmpty() || path.indexOf('%') >= 0 || path.indexOf(';') >= 0 || path.contains("//")
                    || path.contains("/.")) {
                return true;
            }
            for (String prefix : prefixes) {
                if (path.regionMatches(true, 0, prefix, 0, prefix.length())) {
                    return true;
                }
            }
            return false;
        }

        /** Whether an annotated handler's mapping matches {@code request}, its path parsed and cached in it. */
        boolean mayServeAnnotated(HttpServletRequest request) {
            if (!screened) {
                return true;
            }
            for (RequestMappingInfo info : annotated) {
                if (info.getMatchingCondition(request) != null) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * The request as the handler mappings see it: the attributes they set (the parsed path, the matched pattern and
     * variables) stay in this view, so the request reaches {@code DispatcherServlet} as it came.
     */
    private static final class LookupRequest extends HttpServletRequestWrapper {

        private final Map<String, @Nullable Object> changed = new HashMap<>(8);

        LookupRequest(HttpServletRequest request) {
            super(request);
        }

        @Override
        public @Nullable Object getAttribute(String name) {
            return changed.containsKey(name) ? changed.get(name) : super.getAttribute(name);
        }

        @Override
        public void setAttribute(String name, @Nullable Object value) {
            changed.put(name, value);
        }

        @Override
        public void removeAttribute(String name) {
            changed.put(name, null);
        }

        @Override
        public Enumeration<String> getAttributeNames() {
            Set<String> names = new HashSet<>(Collections.list(super.getAttributeNames()));
            changed.forEach((name, value) -> {
                if (value == null) {
                    names.remove(name);
                } else {
                    names.add(name);
                }
            });
            return Collections.enumeration(names);
        }
    }
}
