package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spring.boot.testapp.LimitedApplication;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;

/**
 * The filter asks Spring MVC's handler mappings for the route of a request only when a {@code @RateLimited} handler
 * can serve it: a handler mapping first in order counts the lookups of each path (and serves none), in the tests'
 * application on an embedded Tomcat, over real HTTP.
 */
@SpringBootTest(classes = {LimitedApplication.class, AnnotatedRouteLookupTest.Counting.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AnnotatedRouteLookupTest {

    @LocalServerPort
    int port;

    @Autowired
    CountingMapping lookups;

    @Test
    void requestNoAnnotatedHandlerServes_isLookedUpOnceLessThanAnAnnotatedHandlersRequest() {
        assertThat(new Http(port).get("/api/hello", "203.0.113.200").statusCode()).isEqualTo(200);
        assertThat(new Http(port).get("/api/annotated", "203.0.113.200").statusCode()).isEqualTo(200);

        assertThat(lookups.of("/api/annotated")).as("the filter's and the dispatcher's")
                .isEqualTo(lookups.of("/api/hello") + 1);
    }

    /**
     * A path the screen cannot read as Spring reads it (an encoded letter) still reaches the lookup, and the
     * annotated handler's limit (2 a minute) holds.
     */
    @ParameterizedTest
    @ValueSource(strings = {"/api/%61nnotated", "/api/annotat%65d"})
    void requestToAnAnnotatedHandlerEncoded_isLookedUpAndLimited(String path) {
        String client = "203.0.113." + (201 + Math.abs(path.hashCode() % 50));
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            statuses.add(new Http(port).get(path, client).statusCode());
        }

        assertThat(statuses).containsExactly(200, 200, 429);
        assertThat(lookups.of(path)).as("the filter's and the dispatcher's, for each").isEqualTo(2 + 2 + 1);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Counting {

        @Bean
        CountingMapping countingMapping() {
            return new CountingMapping();
        }
    }

    /** Counts the lookups of each request path, first of the handler mappings, and finds no handler. */
    static final class CountingMapping implements HandlerMapping, Ordered {

        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        @Override
        public @Nullable HandlerExecutionChain getHandler(HttpServletRequest request) {
            counts.computeIfAbsent(request.getRequestURI(), uri -> new AtomicInteger()).incrementAndGet();
            return null;
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }

        int of(String path) {
            AtomicInteger count = counts.get(path);
            return count == null ? 0 : count.get();
        }
    }
}
