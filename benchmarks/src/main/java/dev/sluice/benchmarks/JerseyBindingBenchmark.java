package dev.sluice.benchmarks;

import dev.sluice.annotation.RateLimited;
import dev.sluice.jersey.RateLimitFeature;
import dev.sluice.store.LocalCounterStore;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.CommonProperties;
import org.glassfish.jersey.internal.MapPropertiesDelegate;
import org.glassfish.jersey.server.ApplicationHandler;
import org.glassfish.jersey.server.ContainerRequest;
import org.glassfish.jersey.server.ContainerResponse;
import org.glassfish.jersey.server.ResourceConfig;
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
 * The Jersey binding's cost per request: Jersey's {@link ApplicationHandler} in this process (no container, no
 * network) answering {@code GET /hello}, a resource method under {@code @RateLimited} (a token bucket that never runs
 * out, keyed by the header {@code X-Client}, over 1 or 256 clients) with the binding on a local store
 * ({@code sluice}) or without it ({@code none}). The binding's cost is the difference; with {@code -prof gc}, so is
 * its allocation per request.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar JerseyBindingBenchmark -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class JerseyBindingBenchmark {

    private static final URI BASE = URI.create("http://127.0.0.1/");
    private static final URI HELLO = BASE.resolve("hello");

    @Param({"none", "sluice"})
    public String binding;

    @Param({"1", "256"})
    public int keys;

    private ApplicationHandler application;
    private LocalCounterStore store;
    private String[] clients;

    /** The resource; public for Jersey. */
    @Path("hello")
    public static class Hello {
        @GET
        @RateLimited(id = "hello", permits = 1_000_000_000, period = "1s", key = "header:X-Client")
        public String hello() {
            return "ok";
        }
    }

    @Setup
    public void setUp() {
        // Without the binding, nothing may discover it either.
        ResourceConfig config = new ResourceConfig(Hello.class)
                .property(CommonProperties.FEATURE_AUTO_DISCOVERY_DISABLE, true);
        store = new LocalCounterStore();
        if (binding.equals("sluice")) {
            config.register(RateLimitFeature.builder().store(store).build());
        }
        application = new ApplicationHandler(config);
        clients = new String[keys];
        for (int i = 0; i < keys; i++) {
            clients[i] = HttpOverheadServer.clientAddress(i);
        }
    }

    @TearDown
    public void tearDown() {
        application.onShutdown(null);
        store.close();
    }

    @Benchmark
    public ContainerResponse apply(Keys.Cursor cursor) throws Exception {
        ContainerRequest request = new ContainerRequest(BASE, HELLO, "GET", null, new MapPropertiesDelegate(),
                application.getConfiguration());
        request.header("X-Client", clients[cursor.next(clients.length)]);
        return application.apply(request).get();
    }
}
