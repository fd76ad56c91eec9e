package dev.sluice.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The servlet filter's overhead over HTTP, side by side: starts {@link HttpOverheadServer} in a JVM of its own with no
 * filter, with a filter that only passes requests on (what any filter costs in Jetty), with the filter on the local
 * store, and with the filter on a two-member Hazelcast cluster (the second member
 * in a third JVM, {@link BenchmarkCluster#main}), and loads each at 1 and at 256 client keys from this JVM, then
 * prints requests/s per server and key count, each filtered figure as a share of Jetty without the filter, and the
 * CPU time the server's processes spent per request: a figure that other load on the machine disturbs far less than
 * the rate, which the load generator's own share of the cores also bounds.
 *
 * <p>The load is closed-loop, like {@code wrk -t1}: one thread keeps {@code connections} keep-alive connections busy,
 * each sending its next {@code GET /api/hello} when the previous answer is in; client {@code i} is named by
 * {@code X-Forwarded-For}, the requests cycling through the clients. Each measurement follows a warm-up on the same
 * server and ends after {@code seconds} or {@code requests} answers, whichever comes first. An answer other than 200
 * is counted and reported (a run with any is not the filter's overhead).
 *
 * <p>The warm-up is long because on a two-core machine the JIT compilers of three JVMs share the cores with the load,
 * and a Hazelcast member has much code to compile: after a warm-up of 8 s the leased server still spent 164 µs of CPU
 * per request, after 40 s 52 µs, and its requests/s rose from 10,848 to 28,036.
 *
 * <p>Run ({@code name=value} arguments, all optional, defaults shown):
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.HttpOverheadRun \
 *     servers=none,noop,local,hazelcast keys=1,256 warmup=40 seconds=20 requests=2000000 connections=32 \
 *     jvm='-Xms1g -Xmx1g'
 * </pre>
 * The console's cost is {@code servers=local,local-console,hazelcast,hazelcast-console}: each mode beside its
 * twin with the console recording and publishing. {@code jvm} holds the options of the server JVMs, separated by
 * spaces (add {@code -XX:StartFlightRecording=...} to profile them).
 *
 * <p>The filter in a Spring Boot application (the example, {@code examples/spring-boot}, built first with
 * {@code mvn -B -q -pl examples/spring-boot -am package -DskipTests}) is
 * {@code servers=none,local,spring-none,spring-local}:
 * {@code spring-none} is the example with Sluice off ({@code sluice.enabled=false}), {@code spring-local} the example
 * limiting {@code /api/hello} by this run's rules on the local store, on Spring Boot's embedded Tomcat; the run then
 * also prints the CPU the filter adds per request in each ({@code local} less {@code none}, {@code spring-local} less
 * {@code spring-none}). {@code app} is the example's jar.
 */
public final class HttpOverheadRun {

    private static final Map<String, String> DEFAULTS = Map.of("servers", "none,noop,local,hazelcast", "keys", "1,256",
            "warmup", "40", "seconds", "20", "requests", "2000000", "connections", "32", "jvm", "-Xms1g -Xmx1g",
            "app", "examples/spring-boot/target/sluice-spring-boot-example.jar");

    /** The start of the line a Spring Boot application prints once it serves. */
    private static final String SPRING_READY = "Started ";

    private static final Map<String, String> TITLES = Map.ofEntries(Map.entry("none", "no filter"),
            Map.entry("noop", "a filter doing nothing"), Map.entry("local", "filter, local store"),
            Map.entry("hazelcast", "filter, 2-member Hazelcast"),
            Map.entry("hazelcast-leased", "filter, 2-member Hazelcast, leased"),
            Map.entry("hazelcast-synced", "filter, 2-member Hazelcast, synchronised"),
            Map.entry("local-console", "filter, local store, console publishing"),
            Map.entry("hazelcast-console", "filter, 2-member Hazelcast, console publishing"),
            Map.entry("spring-none", "Spring Boot, Sluice off"),
            Map.entry("spring-local", "Spring Boot starter, local store"));

    private HttpOverheadRun() {
    }

    public static void main(String[] args) throws Exception {
        RunOptions options = RunOptions.parse(DEFAULTS, args);
        List<String> servers = List.of(options.get("servers").split(","));
        int[] keyCounts = Arrays.stream(options.get("keys").split(",")).mapToInt(Integer::parseInt).toArray();
        Load load = new Load(Integer.parseInt(options.get("connections")),
                TimeUnit.SECONDS.toNanos(Long.parseLong(options.get("warmup"))),
                TimeUnit.SECONDS.toNanos(Long.parseLong(options.get("seconds"))),
                Long.parseLong(options.get("requests")));
        List<String> jvm = options.words("jvm");
        Path app = Path.of(options.get("app"));
        System.out.println("HttpOverheadRun " + options);

        Map<String, Figures[]> figures = new LinkedHashMap<>();
        for (String server : servers) {
            figures.put(server, measure(server, keyCounts, load, jvm, app));
        }
        System.out.println(table(servers, keyCounts, figures, Figures::rate, "%,.0f", true,
                "requests/s; in brackets, the share of Jetty without the filter"));
        System.out.println(table(servers, keyCounts, figures, Figures::cpuMicros, "%,.1f", false,
                "CPU µs per request of the server's JVMs (the Hazelcast member's included); in brackets, the ratio to"
                        + " Jetty without the filter"));
        if (figures.keySet().containsAll(List.of("none", "local", "spring-none", "spring-local"))) {
            for (int k = 0; k < keyCounts.length; k++) {
                double jetty = added(figures, "local", "none", k);
                double spring = added(figures, "spring-local", "spring-none", k);
                System.out.printf(Locale.ROOT, "%d client keys: the filter adds %.1f µs CPU per request in Jetty,"
                        + " %.1f µs in Spring Boot (%.1f %% of Jetty's)%n", keyCounts[k], jetty, spring,
                        100 * spring / jetty);
            }
        }
    }

    /** The CPU µs per request {@code server} spends beyond {@code baseline}, at the {@code k}th key count. */
    private static double added(Map<String, Figures[]> figures, String server, String baseline, int k) {
        return Objects.requireNonNull(figures.get(server))[k].cpuMicros()
                - Objects.requireNonNull(figures.get(baseline))[k].cpuMicros();
    }

    /** What one measurement found: requests/s, and CPU time of the server's processes per request. */
    private record Figures(double rate, double cpuMicros) {
    }

    /**
     * A Markdown table of {@code figure}: a row per key count, a column per server, each filtered server's figure
     * also as a share (percent) or a ratio of the unfiltered one's.
     */
    private static String table(List<String> servers, int[] keyCounts, Map<String, Figures[]> figures,
                                ToDoubleFunction<Figures> figure, String format, boolean share, String caption) {
        StringBuilder table = new StringBuilder("\n| client keys |");
        servers.forEach(server -> table.append(' ').append(TITLES.getOrDefault(server, server)).append(" |"));
        table.append("\n| --- |").append(" --- |".repeat(servers.size()));
        for (int k = 0; k < keyCounts.length; k++) {
            table.append("\n| ").append(keyCounts[k]).append(" |");
            for (String server : servers) {
                double value = figure.applyAsDouble(Objects.requireNonNull(figures.get(server))[k]);
                table.append(' ').append(String.format(Locale.ROOT, format, value));
                if (figures.containsKey("none") && !server.equals("none")) {
                    double base = figure.applyAsDouble(Objects.requireNonNull(figures.get("none"))[k]);
                    table.append(share ? String.format(Locale.ROOT, " (%.1f %%)", 100 * value / base)
                            : String.format(Locale.ROOT, " (%.2f)", value / base));
                }
                table.append(" |");
            }
        }
        return table.append("\n").append(caption).toString();
    }

    /** Starts {@code server} (and the member it joins), loads it at each key count, and stops what it started. */
    private static Figures[] measure(String server, int[] keyCounts, Load load, List<String> jvm, Path app)
            throws Exception {
        try (ServerProcesses processes = new ServerProcesses()) {
            int port = BenchmarkCluster.freePort();
            if (server.startsWith("spring-")) {
                processes.startJar(jvm, app, springArgs(server, port), SPRING_READY);
                return load(server, keyCounts, load, port, processes);
            }
            List<String> serverArgs = new ArrayList<>(List.of(server, Integer.toString(port)));
            List<String> serverJvm = new ArrayList<>(jvm);
            if (server.startsWith("hazelcast")) {
                serverJvm.addAll(ServerProcesses.HAZELCAST_JVM);
                String memberPort = Integer.toString(BenchmarkCluster.freePort());
                processes.start(serverJvm, BenchmarkCluster.class, List.of(HttpOverheadServer.CLUSTER_NAME,
                        memberPort, memberPort), null);
                serverArgs.add(memberPort);
            }
            processes.start(serverJvm, HttpOverheadServer.class, serverArgs, HttpOverheadServer.READY);
            return load(server, keyCounts, load, port, processes);
        }
    }

    /** Loads the started {@code server} at each key count. */
    private static Figures[] load(String server, int[] keyCounts, Load load, int port, ServerProcesses processes)
            throws IOException {
        Figures[] figures = new Figures[keyCounts.length];
        for (int k = 0; k < keyCounts.length; k++) {
            figures[k] = load.run(new InetSocketAddress("127.0.0.1", port), keyCounts[k], server, processes.started());
        }
        return figures;
    }

    /**
     * The example application's arguments for {@code server}: its port, quiet logs, and either Sluice off or Sluice on
     * the local store with this run's rules (the example's own limit /api/hello to 3 a minute).
     */
    private static List<String> springArgs(String server, int port) throws IOException {
        // Messages alone, warnings but Sluice's and the application's own (its "Started ..." line, read as ready);
        // Tomcat closes a keep-alive connection after 100 requests unless told otherwise (Jetty never does).
        List<String> args = new ArrayList<>(List.of("--server.port=" + port, "--spring.main.banner-mode=off",
                "--server.tomcat.max-keep-alive-requests=-1",
                "--logging.pattern.console=%m%n", "--logging.level.root=WARN", "--logging.level.dev.sluice=INFO"));
        switch (server) {
            case "spring-none" -> args.add("--sluice.enabled=false");
            case "spring-local" -> {
                Path rules = Files.createTempFile("sluice-bench-rules", ".json");
                rules.toFile().deleteOnExit();
                Files.writeString(rules, HttpOverheadServer.RULES);
                args.addAll(List.of("--sluice.rules=file:" + rules, "--sluice.rules-reload-interval=0",
                        "--sluice.store=local"));
            }
            default -> throw new IllegalArgumentException("servers: unknown Spring Boot server " + server
                    + "; spring-none or spring-local");
        }
        return args;
    }

    /** A closed-loop load ({@link ClosedLoopLoad}) of {@code connections}, after a warm-up. */
    private record Load(int connections, long warmupNanos, long measureNanos, long maxRequests) {

        /**
         * Warms {@code server} up at {@code keys} clients, then measures, prints and returns its requests/s and the
         * CPU time its {@code processes} spent per request.
         */
        Figures run(InetSocketAddress address, int keys, String server, List<Process> processes) throws IOException {
            byte[][] requests = new byte[keys][];
            for (int i = 0; i < keys; i++) {
                requests[i] = KeepAliveConnection.request("GET", "/api/hello",
                        "X-Forwarded-For: " + HttpOverheadServer.clientAddress(i) + "\r\n");
            }
            try (ClosedLoopLoad load = new ClosedLoopLoad(List.of(address), connections, requests)) {
                ClosedLoopLoad.Measured run = load.warmThenMeasure(warmupNanos, measureNanos, maxRequests, processes);
                ClosedLoopLoad.Phase measured = run.phase();
                double cpuMicros = run.cpuMicrosPerAnswer();
                System.out.printf(Locale.ROOT, "%s, %d client keys: %,d requests in %.1f s: %,.0f/s, server CPU"
                                + " %.1f µs per request (%d not 200)%n", server, keys, measured.answered(),
                        measured.nanos() / 1e9, measured.rate(), cpuMicros, measured.notOk());
                return new Figures(measured.rate(), cpuMicros);
            }
        }
    }
}
