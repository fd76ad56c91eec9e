package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ManualTimeSource;
import dev.sluice.store.LocalCounterStore;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java client in a JVM of its own, with exactly the class path an application gets from the documented
 * dependencies (Sluice's service jar and core with their own dependencies, and the JAX-RS client), against a real
 * service: with {@code jersey-client} alone Jersey prints two warnings on stderr (no HK2 injection manager, no
 * {@code jakarta.activation}); with {@code jersey-hk2} and {@code jakarta.activation-api} beside it, nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientClassPathTest {

    /** Sluice's service jar and sluice-core, with core's own dependencies (jackson-core, jspecify). */
    private static final List<String> SLUICE = List.of("dev.sluice.service.client.LimiterClient",
            "dev.sluice.Decision", "com.fasterxml.jackson.core.JsonFactory", "org.jspecify.annotations.NullMarked");

    /** org.glassfish.jersey.core:jersey-client and what it brings: jersey-common and the APIs it needs. */
    private static final List<String> JERSEY_CLIENT = List.of("org.glassfish.jersey.client.JerseyClient",
            "org.glassfish.jersey.internal.inject.InjectionManager", "jakarta.ws.rs.client.Client",
            "jakarta.inject.Inject", "jakarta.annotation.Priority",
            "org.glassfish.hk2.osgiresourcelocator.ServiceLoader");

    /** org.glassfish.jersey.inject:jersey-hk2 and what it brings, and jakarta.activation:jakarta.activation-api. */
    private static final List<String> QUIET = List.of("org.glassfish.jersey.inject.hk2.Hk2InjectionManagerFactory",
            "org.jvnet.hk2.internal.ServiceLocatorImpl", "org.glassfish.hk2.api.ServiceLocator",
            "org.glassfish.hk2.utilities.reflection.ReflectionHelper", "org.aopalliance.intercept.MethodInterceptor",
            "javassist.ClassPool", "jakarta.activation.DataSource");

    private static final String PROBE = """
            import dev.sluice.service.client.LimiterClient;
            import jakarta.ws.rs.client.ClientBuilder;
            import java.time.Duration;

            public class Probe {
                public static void main(String[] args) {
                    var client = ClientBuilder.newClient();
                    LimiterClient limiter = LimiterClient.of(client.target(args[0]));
                    System.out.println(limiter.acquire("partner-api", null, 1, Duration.ZERO));
                    client.close();
                }
            }
            """;

    private TestServer server;
    private String base;

    @BeforeAll
    void start() throws Exception {
        server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LimiterServiceTest.LIMITS))
                .store(new LocalCounterStore(new ManualTimeSource(), 10_000, Runnable::run)).build()));
        base = server.base().toString();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void client_jerseyClientAlone_printsJerseysWarnings(@TempDir Path dir) throws Exception {
        Run run = runProbe(dir, classPath(SLUICE, JERSEY_CLIENT));

        assertThat(run.out()).contains("granted=true");
        assertThat(run.err()).contains("Jersey-HK2 module is missing", "jakarta.activation.DataSource");
    }

    @Test
    void client_documentedDependencies_runQuietly(@TempDir Path dir) throws Exception {
        Run run = runProbe(dir, classPath(SLUICE, JERSEY_CLIENT, QUIET));

        assertThat(run.out()).contains("granted=true", "limiterUnavailable=false");
        assertThat(run.err()).isEmpty();
    }

    private record Run(String out, String err) {
    }

    /** Runs the probe from source (the JDK's source launcher: nothing of the tests' class path comes along). */
    private Run runProbe(Path dir, String classPath) throws Exception {
        Path source = Files.writeString(dir.resolve("Probe.java"), PROBE);
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", classPath, source.toString(), base)
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("the probe ends").isTrue();
        Run run = new Run(Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        assertThat(process.exitValue()).as("the probe's exit; stderr: %s", run.err()).isZero();
        return run;
    }

    /** The jars (or class directories) holding the named classes, one for each. */
    @SafeVarargs
    private static String classPath(List<String>... classNames) throws ClassNotFoundException, URISyntaxException {
        List<String> entries = new ArrayList<>();
        for (List<String> names : classNames) {
            for (String name : names) {
                Class<?> type = Class.forName(name, false, ClientClassPathTest.class.getClassLoader());
                entries.add(Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
            }
        }
        return String.join(File.pathSeparator, entries);
    }
}
