package dev.sluice.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

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
            "filter, 2-member Hazelcast, leased", "hazelcast-member-batched",
            "filter, 2-member Hazelcast, member batches", "hazelcast-synced",
            "filter, 2-member Hazelcast, synchronised", "local-console", "filter, local store, console publishing",
            "hazelcast-console", "filter, 2-member Hazelcast, console publishing");

    /**
     * For the JVMs with a Hazelcast member: the access to JDK internals Hazelcast asks for at start, and no Hazelcast
     * INFO lines burying the figures (Sluice's warnings, through java.util.logging, still show).
     */
    private static final List<String> HAZELCAST_JVM = List.of("-Dhazelcast.logging.type=none",
            "--add-modules", "java.se", "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.management/sun.management=ALL-UNNAMED",
            "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");

    private HttpOverheadRun() {
    }

    /** The option {@code name}: given, or its default (every option has one). */
    private static String option(Map<String, String> options, String name) {
        return Objects.requireNonNull(options.get(name), name);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>(DEFAULTS);
        for (String arg : args) {
            int equals = arg.indexOf('=');
            if (equals < 0 || !DEFAULTS.containsKey(arg.substring(0, equals))) {
                throw new IllegalArgumentException("expected name=value with a name among " + DEFAULTS.keySet()
                        + ", got " + arg);
            }
            options.put(arg.substring(0, equals), arg.substring(equals + 1));
        }
        List<String> servers = List.of(option(options, "servers").split(","));
        int[] keyCounts = Arrays.stream(option(options, "keys").split(",")).mapToInt(Integer::parseInt).toArray();
        Load load = new Load(Integer.parseInt(option(options, "connections")),
                TimeUnit.SECONDS.toNanos(Long.parseLong(option(options, "warmup"))),
                TimeUnit.SECONDS.toNanos(Long.parseLong(option(options, "seconds"))),
                Long.parseLong(option(options, "requests")));
        String jvmOptions = option(options, "jvm").trim();
        List<String> jvm = jvmOptions.isEmpty() ? List.of() : List.of(jvmOptions.split("\\s+"));
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
        List<Process> started = new ArrayList<>();
        try {
            int port = BenchmarkCluster.freePort();
            List<String> serverArgs = new ArrayList<>(List.of(server, Integer.toString(port)));
            List<String> serverJvm = new ArrayList<>(jvm);
            if (server.startsWith("hazelcast")) {
                serverJvm.addAll(HAZELCAST_JVM);
                String memberPort = Integer.toString(BenchmarkCluster.freePort());
                started.add(java(serverJvm, BenchmarkCluster.class, List.of(HttpOverheadServer.CLUSTER_NAME,
                        memberPort, memberPort), null));
                serverArgs.add(memberPort);
            }
            started.add(java(serverJvm, HttpOverheadServer.class, serverArgs, HttpOverheadServer.READY));
            Figures[] figures = new Figures[keyCounts.length];
            for (int k = 0; k < keyCounts.length; k++) {
                figures[k] = load.run(new InetSocketAddress("127.0.0.1", port), keyCounts[k], server, started);
            }
            return figures;
        } finally {
            // The server first: a member that leaves before it would only fill its log with reconnection attempts.
            for (int i = started.size() - 1; i >= 0; i--) {
                Process process = started.get(i);
                process.destroy();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Starts {@code main} in a JVM of its own on this class path; when {@code ready} is given, returns once it printed
     * a line starting with that. Its output goes on to this one's.
     */
    private static Process java(List<String> jvm, Class<?> main, List<String> args, @Nullable String ready)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvm);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CountDownLatch printed = new CountDownLatch(1);
        Thread echo = new Thread(() -> {
            try (BufferedReader output = process.inputReader(StandardCharsets.UTF_8)) {
                for (String line = output.readLine(); line != null; line = output.readLine()) {
                    System.out.println("  [" + main.getSimpleName() + "] " + line);
                    if (ready != null && line.startsWith(ready)) {
                        printed.countDown();
                    }
                }
            } catch (IOException ended) {
                // The process is gone: the wait below notices.
            }
        });
        echo.setDaemon(true);
        echo.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (ready != null && !printed.await(1, TimeUnit.SECONDS)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroy();
                throw new IllegalStateException(main.getSimpleName() + " " + args + " did not start serving");
            }
        }
        return process;
    }

    /**
     * A closed-loop HTTP/1.1 load on one thread: {@code connections} keep-alive connections, each with one request in
     * flight. Not thread-safe.
     */
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
            try (Selector selector = Selector.open()) {
                List<KeepAliveConnection> open = new ArrayList<>();
                try {
                    for (int c = 0; c < connections; c++) {
                        open.add(KeepAliveConnection.open(address, selector));
                    }
                    phase(selector, open, requests, warmupNanos, Long.MAX_VALUE);
                    List<ProcessHandle> handles = processes.stream().map(Process::toHandle).toList();
                    long cpuBefore = OpenLoopLoad.cpuNanos(handles);
                    Phase measured = phase(selector, open, requests, measureNanos, maxRequests);
                    double cpuMicros = (OpenLoopLoad.cpuNanos(handles) - cpuBefore) / 1e3 / measured.answered;
                    double rate = measured.answered * 1e9 / measured.nanos;
                    System.out.printf(Locale.ROOT, "%s, %d client keys: %,d requests in %.1f s: %,.0f/s, server CPU"
                                    + " %.1f µs per request (%d not 200)%n", server, keys, measured.answered,
                            measured.nanos / 1e9, rate, cpuMicros, measured.notOk);
                    return new Figures(rate, cpuMicros);
                } finally {
                    for (KeepAliveConnection connection : open) {
                        connection.close();
                    }
                }
            }
        }

        /** What one phase counted: answers, those that were not 200, and the time they took. */
        private record Phase(long answered, long notOk, long nanos) {
        }

        /**
         * Keeps every connection busy until {@code nanos} passed or {@code limit} answers came, then waits for the
         * answers still in flight, uncounted, so the next phase starts on idle connections.
         */
        private static Phase phase(Selector selector, List<KeepAliveConnection> open, byte[][] requests, long nanos,
                                   long limit) throws IOException {
            long start = System.nanoTime();
            long end = start + nanos;
            long answered = 0;
            long notOk = 0;
            int next = 0;
            for (KeepAliveConnection connection : open) {
                connection.send(requests[next++ % requests.length]);
            }
            int inFlight = open.size();
            long stoppedAt = 0;
            while (inFlight > 0) {
                selector.select(100);
                long now = System.nanoTime();
                boolean counting = stoppedAt == 0;
                for (SelectionKey key : selector.selectedKeys()) {
                    KeepAliveConnection connection = (KeepAliveConnection) key.attachment();
                    int status = connection.receive();
                    if (status == 0) {
                        continue;
                    }
                    if (counting) {
                        answered++;
                        notOk += status == 200 ? 0 : 1;
                    }
                    if (stoppedAt == 0 && (now >= end || answered >= limit)) {
                        stoppedAt = now;
                    }
                    if (stoppedAt == 0) {
                        connection.send(requests[next++ % requests.length]);
                    } else {
                        inFlight--;
                    }
                }
                selector.selectedKeys().clear();
            }
            return new Phase(answered, notOk, stoppedAt - start);
        }
    }
}
