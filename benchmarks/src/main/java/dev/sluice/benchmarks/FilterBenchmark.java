package dev.sluice.benchmarks;

import dev.sluice.servlet.FilterSettings;
import dev.sluice.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The servlet filter's own cost per request, without a container or the network: {@link RateLimitFilter#doFilter}
 * on the local store with the rules of {@link HttpOverheadServer} (one per-client-IP token bucket that never runs out,
 * the client named by a trusted proxy's {@code X-Forwarded-For}), over 1 or 256 client keys. Requests and responses
 * are minimal stand-ins that answer only what the filter asks (anything else throws), so with {@code -prof gc} the
 * allocation per operation is the filter's.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar FilterBenchmark -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class FilterBenchmark {

    private static final FilterChain PASS = (request, response) -> {
    };

    @Param({"1", "256"})
    public int keys;

    private RateLimitFilter filter;
    private Request[] requests;
    private Response response;
    private Path rules;

    @Setup
    public void setUp() throws Exception {
        rules = Files.writeString(Files.createTempFile("sluice-filter-bench", ".json"), HttpOverheadServer.RULES);
        filter = new RateLimitFilter(FilterSettings.builder().rules("file:" + rules).build());
        filter.init(unsupported(FilterConfig.class, (method, args) -> switch (method) {
            case "getServletContext" -> unsupported(ServletContext.class, (contextMethod, contextArgs) ->
                    switch (contextMethod) {
                        case "getContextPath" -> "";
                        case "getAttribute", "setAttribute", "removeAttribute" -> null;
                        default -> throw new UnsupportedOperationException(contextMethod);
                    });
            case "getFilterName" -> "sluice";
            default -> throw new UnsupportedOperationException(method);
        }));
        requests = new Request[keys];
        for (int i = 0; i < keys; i++) {
            requests[i] = new Request(HttpOverheadServer.clientAddress(i));
        }
        response = new Response();
    }

    @TearDown
    public void tearDown() throws Exception {
        filter.destroy();
        Files.delete(rules);
    }

    @Benchmark
    public int doFilter(Keys.Cursor cursor) throws Exception {
        Request request = requests[cursor.next(requests.length)];
        request.evaluation = null;
        filter.doFilter(request, response, PASS);
        return response.headers;
    }

    private interface Answer {
        @Nullable Object answer(String method, Object @Nullable [] args);
    }

    /** An object of {@code type} answering {@code answer}; only for set-up, never per request. */
    private static <T> T unsupported(Class<T> type, Answer answer) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> answer.answer(method.getName(), args)));
    }

    /** {@code GET /api/hello} from the proxy 127.0.0.1 for the client {@code forwardedFor}. */
    private static final class Request extends HttpServletRequestWrapper {
        private final String forwardedFor;
        private @Nullable Object evaluation;

        Request(String forwardedFor) {
            super(unsupported(HttpServletRequest.class, (method, args) -> {
                throw new UnsupportedOperationException(method);
            }));
            this.forwardedFor = forwardedFor;
        }

        @Override
        public DispatcherType getDispatcherType() {
            return DispatcherType.REQUEST;
        }

        @Override
        public @Nullable Object getAttribute(String name) {
            return name.equals(RateLimitFilter.EVALUATION_ATTRIBUTE) ? evaluation : null;
        }

        @Override
        public void setAttribute(String name, Object value) {
            if (name.equals(RateLimitFilter.EVALUATION_ATTRIBUTE)) {
                evaluation = value;
            }
        }

        @Override
        public String getMethod() {
            return "GET";
        }

        @Override
        public String getServletPath() {
            return "/api";
        }

        @Override
        public String getPathInfo() {
            return "/hello";
        }

        @Override
        public @Nullable String getHeader(String name) {
            return name.equalsIgnoreCase("X-Forwarded-For") ? forwardedFor : null;
        }

        @Override
        public Enumeration<String> getHeaders(String name) {
            return name.equalsIgnoreCase("X-Forwarded-For") ? new SingleValue(forwardedFor)
                    : Collections.emptyEnumeration();
        }

        @Override
        public String getRemoteAddr() {
            return "127.0.0.1";
        }
    }

    /** The one value of a header, as a container hands it out: a fresh enumeration per call. */
    private static final class SingleValue implements Enumeration<String> {
        private @Nullable String value;

        SingleValue(String value) {
            this.value = value;
        }

        @Override
        public boolean hasMoreElements() {
            return value != null;
        }

        @Override
        public String nextElement() {
            String next = value;
            if (next == null) {
                throw new NoSuchElementException();
            }
            value = null;
            return next;
        }
    }

    /** Counts the header fields set on it. */
    private static final class Response extends HttpServletResponseWrapper {
        int headers;

        Response() {
            super(unsupported(HttpServletResponse.class, (method, args) -> {
                throw new UnsupportedOperationException(method);
            }));
        }

        @Override
        public void setHeader(String name, String value) {
            headers++;
        }
    }
}
