package dev.sluice.benchmarks;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The filter holding a concurrency limit over HTTP: two {@link ConcurrencyHttpServer} instances, each in a JVM of its
 * own, share one tenant's limit of {@code permits} requests in flight in front of a servlet that sleeps 50 ms, under a
 * closed-loop load of {@code connections} keep-alive connections spread over both. For each store it prints
 * requests/s (admitted and rejected), server CPU per request, and the most requests the servlets ever held at once
 * across both instances (from their entry and exit times on the machine's one monotonic clock), which a limit that
 * holds keeps at {@code permits} or below. With the {@code local} store each instance counts alone, so the two may
 * hold up to twice the limit: the reason for a shared store.
 *
 * <p>Run ({@code name=value} arguments, all optional, defaults shown):
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.ConcurrencyHttpRun \
 *     stores=local,hazelcast permits=16 connections=64 warmup=40 seconds=20 jvm='-Xms1g -Xmx1g'
 * </pre>
 */
public final class ConcurrencyHttpRun {

    private static final Map<String, String> DEFAULTS = Map.of("stores", "local,hazelcast", "permits", "16",
            "connections", "64", "warmup", "40", "seconds", "20", "jvm", "-Xms1g -Xmx1g");

    private ConcurrencyHttpRun() {
    }

    public static void main(String[] args) throws Exception {
        RunOptions options = RunOptions.parse(DEFAULTS, args);
        System.out.println("ConcurrencyHttpRun " + options);
        int permits = Integer.parseInt(options.get("permits"));
        List<String> jvm = new ArrayList<>(options.words("jvm"));
        jvm.addAll(ServerProcesses.HAZELCAST_JVM);
        StringBuilder table = new StringBuilder("\n| store | admitted/s | rejected/s | server CPU µs per request"
                + " | most in flight, both instances | most in flight, one instance | most in flight, both, warm-up"
                + " included |\n| --- | --- | --- | --- | --- | --- | --- |");
        for (String store : options.get("stores").split(",")) {
            table.append('\n').append(measure(store, permits, Integer.parseInt(options.get("connections")),
                    TimeUnit.SECONDS.toNanos(Long.parseLong(options.get("warmup"))),
                    TimeUnit.SECONDS.toNanos(Long.parseLong(options.get("seconds"))), jvm));
        }
        System.out.println(table.append("\nlimit: ").append(permits).append(" requests in flight; the servlet sleeps ")
                .append(ConcurrencyHttpServer.SLEEP_MILLIS).append(" ms, so the limit allows at most ")
                .append(permits * 1000 / ConcurrencyHttpServer.SLEEP_MILLIS).append(" admitted/s"));
    }

    /** Starts two instances on {@code store}, loads them, and returns the table row of what it found. */
    private static String measure(String store, int permits, int connections, long warmupNanos, long measureNanos,
                                  List<String> jvm) throws Exception {
        try (ServerProcesses processes = new ServerProcesses()) {
            int[] ports = {BenchmarkCluster.freePort(), BenchmarkCluster.freePort()};
            int[] memberPorts = {BenchmarkCluster.freePort(), BenchmarkCluster.freePort()};
            // Both at once: on Hazelcast each waits for the other's member before it serves.
            List<ServerProcesses.Launched> launched = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                launched.add(processes.launch(jvm, ConcurrencyHttpServer.class, List.of(store,
                        String.valueOf(ports[i]), String.valueOf(permits), String.valueOf(memberPorts[i]),
                        String.valueOf(memberPorts[1 - i])), ConcurrencyHttpServer.READY));
            }
            for (ServerProcesses.Launched server : launched) {
                server.awaitReady();
            }
            List<InetSocketAddress> servers = Arrays.stream(ports)
                    .mapToObj(port -> new InetSocketAddress("127.0.0.1", port)).toList();
            byte[][] requests = {KeepAliveConnection.request("GET", "/api/export", "X-Tenant: acme\r\n")};
            ClosedLoopLoad.Measured run;
            try (ClosedLoopLoad load = new ClosedLoopLoad(servers, connections, requests)) {
                run = load.warmThenMeasure(warmupNanos, measureNanos, Long.MAX_VALUE, processes.started());
            }
            ClosedLoopLoad.Phase measured = run.phase();
            double cpuMicros = run.cpuMicrosPerAnswer();
            long measuredFrom = run.startedAt();
            HttpClient client = HttpClient.newHttpClient();
            for (InetSocketAddress server : servers) {
                requireOneClock(client, server);
            }
            List<long[]> each = new ArrayList<>();
            for (InetSocketAddress server : servers) {
                each.add(intervals(client, server));
            }
            int whole = mostAtOnce(each);
            List<long[]> measuredOnly = each.stream().map(times -> inServletFrom(times, measuredFrom)).toList();
            int both = mostAtOnce(measuredOnly);
            int one = Math.max(mostAtOnce(List.of(measuredOnly.get(0))), mostAtOnce(List.of(measuredOnly.get(1))));
            double seconds = measured.nanos() / 1e9;
            System.out.printf(Locale.ROOT, "%s: %,d answers in %.1f s, %,d admitted; most in flight %d (one instance"
                    + " %d), %d over the whole run, warm-up included%n", store, measured.answered(), seconds,
                    measured.ok(), both, one, whole);
            return String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %.1f | %d | %d | %d |", store,
                    measured.ok() / seconds, measured.notOk() / seconds, cpuMicros, both, one, whole);
        }
    }

    /**
     * Fails unless {@code server}'s {@link System#nanoTime()} is read between two readings of this one's: the
     * instances' entry and exit times are then on one clock, and may be merged.
     */
    private static void requireOneClock(HttpClient client, InetSocketAddress server) throws Exception {
        long before = System.nanoTime();
        String answer = client.send(HttpRequest.newBuilder(uri(server, "/clock")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        long after = System.nanoTime();
        long theirs = Long.parseLong(answer.trim());
        if (theirs < before || theirs > after) {
            throw new IllegalStateException("the servers' monotonic clock is not this process's (" + theirs
                    + " not in [" + before + ", " + after + "]): their times cannot be merged on this system");
        }
    }

    /** {@code server}'s entry and exit times, two longs per request; requests still being written are left out. */
    private static long[] intervals(HttpClient client, InetSocketAddress server) throws Exception {
        try (InputStream body = client.send(HttpRequest.newBuilder(uri(server, "/intervals")).build(),
                HttpResponse.BodyHandlers.ofInputStream()).body();
             DataInputStream in = new DataInputStream(body)) {
            int count = in.readInt();
            long[] times = new long[2 * count];
            int kept = 0;
            for (int i = 0; i < count; i++) {
                long entered = in.readLong();
                long left = in.readLong();
                if (entered != 0 && left != 0) {
                    times[kept++] = entered;
                    times[kept++] = left;
                }
            }
            return Arrays.copyOf(times, kept);
        } catch (IOException e) {
            throw new IOException("could not read the intervals of " + server, e);
        }
    }

    /** The requests of {@code times} (entry and exit pairs) still inside the servlet at {@code from} or later. */
    private static long[] inServletFrom(long[] times, long from) {
        long[] kept = new long[times.length];
        int at = 0;
        for (int i = 0; i < times.length; i += 2) {
            if (times[i + 1] >= from) {
                kept[at++] = times[i];
                kept[at++] = times[i + 1];
            }
        }
        return Arrays.copyOf(kept, at);
    }

    /**
     * The most requests inside the servlets at one instant: entries and exits in time order, an exit first on a tie
     * (the request had left before the other entered, as far as one clock can tell).
     */
    static int mostAtOnce(List<long[]> intervals) {
        int total = intervals.stream().mapToInt(times -> times.length).sum();
        long[] events = new long[total];
        int at = 0;
        for (long[] times : intervals) {
            for (int i = 0; i < times.length; i += 2) {
                // An entry's time doubled plus one, an exit's doubled: sorted, an exit comes before an entry at once.
                events[at++] = 2 * times[i] + 1;
                events[at++] = 2 * times[i + 1];
            }
        }
        Arrays.sort(events);
        int inside = 0;
        int most = 0;
        for (long event : events) {
            inside += (event & 1) == 1 ? 1 : -1;
            most = Math.max(most, inside);
        }
        return most;
    }

    private static URI uri(InetSocketAddress server, String path) {
        return URI.create("http://127.0.0.1:" + server.getPort() + path);
    }
}
