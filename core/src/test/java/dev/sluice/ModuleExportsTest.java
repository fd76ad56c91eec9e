package dev.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.spi.ToolProvider;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sluice-core as a module on the module path: javac compiles a consumer module that uses the public API, and refuses
 * one that imports an internal package, which core exports only to Sluice's own modules.
 */
class ModuleExportsTest {

    @TempDir
    Path dir;

    @Test
    void consumerModule_importsThePublicApi_compiles() throws Exception {
        String result = compile("""
                package consumer;

                import dev.sluice.Limit;
                import dev.sluice.algorithm.Algorithm;
                import dev.sluice.algorithm.Policy;
                import dev.sluice.store.CounterStores;
                import dev.sluice.limiter.RateLimiter;
                import dev.sluice.store.LocalCounterStore;
                import java.time.Duration;

                public class Uses {
                    public static boolean first() {
                        RateLimiter limiter = RateLimiter.builder()
                                .policy(Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofMinutes(1))))
                                .store(CounterStores.of(new LocalCounterStore()).build()).build();
                        return limiter.tryAcquire("client").allowed();
                    }
                }
                """);

        assertThat(result).isEqualTo("compiled");
    }

    @Test
    void consumerModule_importsAnInternalPackage_isRefusedAsNotVisible() throws Exception {
        String result = compile("""
                package consumer;

                import dev.sluice.internal.Durations;

                public class Uses {
                    public static long wait(long nanos) {
                        return Durations.ceilDiv(nanos, 1_000_000_000L);
                    }
                }
                """);

        assertThat(result).contains("package dev.sluice.internal is declared in module dev.sluice.core, which does not"
                + " export it to module consumer");
    }

    @Test
    void consumerModule_importsTheInternalStatePackage_isRefusedAsNotVisible() throws Exception {
        String result = compile("""
                package consumer;

                import dev.sluice.internal.state.Transition;

                public class Uses {
                    public static boolean changed(Transition transition) {
                        return transition.changed();
                    }
                }
                """);

        assertThat(result).contains("not visible");
    }

    /**
     * Compiles module {@code consumer} with one class against core on the module path: "compiled", or javac's errors.
     */
    private String compile(String source) throws IOException, URISyntaxException {
        Path sources = Files.createDirectories(dir.resolve("src/consumer"));
        Files.writeString(dir.resolve("src/module-info.java"), "module consumer { requires dev.sluice.core; }\n");
        Files.writeString(sources.resolve("Uses.java"), source);
        String modulePath = String.join(File.pathSeparator, locationOf(Limit.class), locationOf(JsonFactory.class),
                locationOf(NullMarked.class));
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow();
        StringWriter out = new StringWriter();
        int exit = javac.run(new PrintWriter(out), new PrintWriter(out), "--module-path", modulePath,
                "-d", dir.resolve("out").toString(), dir.resolve("src/module-info.java").toString(),
                sources.resolve("Uses.java").toString());
        return exit == 0 ? "compiled" : out.toString();
    }

    private static String locationOf(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
