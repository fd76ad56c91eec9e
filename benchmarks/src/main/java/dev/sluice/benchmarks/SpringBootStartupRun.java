package dev.sluice.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The start-up time the Spring Boot starter adds: starts the example application ({@code examples/spring-boot}, built
 * first with {@code mvn -B -q -pl examples/spring-boot -am package -DskipTests}) with Sluice on (the local store, the
 * example's rules and annotations) and off ({@code sluice.enabled=false}), in turn, {@code runs} times each after
 * {@code warmup} unmeasured pairs, and prints the median wall time of each from the JVM's start to its exit. Each
 * start ends once the application context is refreshed (Spring's {@code -Dspring.context.exit=onRefresh}): the embedded
 * server and Sluice's filter are started by then, the connector not yet opened. Taken in pairs, so that a machine
 * whose speed drifts moves both alike; the difference of the medians is the starter's cost.
 *
 * <p>Run ({@code name=value} arguments, all optional, defaults shown):
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.SpringBootStartupRun \
 *     runs=5 warmup=1 app=examples/spring-boot/target/sluice-spring-boot-example.jar jvm='-Xms256m -Xmx256m'
 * </pre>
 */
public final class SpringBootStartupRun {

    private static final Map<String, String> DEFAULTS = Map.of("runs", "5", "warmup", "1",
            "app", "examples/spring-boot/target/sluice-spring-boot-example.jar", "jvm", "-Xms256m -Xmx256m");

    private SpringBootStartupRun() {
    }

    public static void main(String[] args) throws Exception {
        RunOptions options = RunOptions.parse(DEFAULTS, args);
        int runs = Integer.parseInt(options.get("runs"));
        int warmup = Integer.parseInt(options.get("warmup"));
        Path app = Path.of(options.get("app"));
        List<String> jvm = options.words("jvm");
        System.out.println("SpringBootStartupRun " + options);

        long[] on = new long[runs];
        long[] off = new long[runs];
        for (int i = -warmup; i < runs; i++) {
            long withSluice = startToExitNanos(jvm, app, List.of());
            long withoutSluice = startToExitNanos(jvm, app, List.of("--sluice.enabled=false"));
            if (i >= 0) {
                on[i] = withSluice;
                off[i] = withoutSluice;
            }
            System.out.printf(Locale.ROOT, "%s pair: Sluice on %.0f ms, off %.0f ms%n", i < 0 ? "warm-up" : "measured",
                    withSluice / 1e6, withoutSluice / 1e6);
        }
        double medianOn = median(on) / 1e6;
        double medianOff = median(off) / 1e6;
        System.out.printf(Locale.ROOT, "median of %d starts: Sluice on %.0f ms, off %.0f ms; the starter adds %.0f"
                + " ms%n", runs, medianOn, medianOff, medianOn - medianOff);
    }

    /** The wall time of one start of {@code app} with {@code args}, from the JVM's start to its exit. */
    private static long startToExitNanos(List<String> jvm, Path app, List<String> args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvm);
        command.addAll(List.of("-Dspring.context.exit=onRefresh", "-jar", app.toString(), "--server.port=0"));
        command.addAll(args);
        long start = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(300, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("the application did not exit within 300 s: " + command);
        }
        long took = System.nanoTime() - start;
        if (process.exitValue() != 0) {
            throw new IllegalStateException("the application exited with " + process.exitValue() + ": " + command);
        }
        return took;
    }

    private static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2.0;
    }
}
