package dev.sluice.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
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
 */
public final class HttpOverheadRun {

    private static final Map<String, String> DEFAULTS = Map.of("servers", "none,noop,local,hazelcast", "keys", "1,256",
            "warmup", "40", "seconds", "20", "requests", "2000000", "connections", "32", "jvm", "-Xms1g -Xmx1g");

    private static final Map<String, String> TITLES = Map.of("none", "no filter", "noop", "a filter doing nothing",
            "local", "filter, local store", "hazelcast", "filter, 2-member Hazelcast", "hazelcast-leased",
            "filter, 2-member Hazelcast, leased", "hazelcast-synced",
            "filter, 2-member Hazelcast, synchronised", "local-console", "filter, local store, console publishing",
            "hazelcast-console", "filter, 2-member Hazelcast, console publishing");

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
        System.out.println("HttpOverheadRun " + options);

        Map<String, Figures[]> figures = new LinkedHashMap<>();
        for (String server : servers) {
            figures.put(server, measure(server, keyCounts, load, jvm));
        }
        System.out.println(table(servers, keyCounts, figures, Figures::rate, "%,.0f", true,
                "requests/s; in brackets, the share of Jetty without the filter"));
        System.out.println(table(servers, keyCounts, figures, Figures::cpuMicros, "%,.1f", false,
                "CPU µs per request of the server's JVMs (the Hazelcast member's included); in brackets, the ratio to"
                        + " Jetty without the filter"));
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
    private static Figures[] measure(String server, int[] keyCounts, Load load, List<String> jvm) throws Exception {
        try (ServerProcesses processes = new ServerProcesses()) {
            int port = BenchmarkCluster.freePort();
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
            Figures[] figures = new Figures[keyCounts.length];
            for (int k = 0; k < keyCounts.length; k++) {
                figures[k] = load.run(new InetSocketAddress("127.0.0.1", port), keyCounts[k], server,
                        processes.started());
            }
            return figures;
        }
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
