package dev.sluice.benchmarks;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A bounded, fixed-rate HTTP load on one URL: {@code rate} requests per second for {@code seconds} after a 2 s warm-up
 * at the same rate, over 64 keep-alive connections, each request timed from its scheduled send ({@link OpenLoopLoad}:
 * no coordinated omission). Prints p50/p95/p99/p99.9, the statuses seen and the CPU time per request.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.FixedRateLoad GET|POST URL RATE
 * SECONDS [SERVER_PID]}; given the server's process id, it also prints the server's CPU time per request.
 */
public final class FixedRateLoad {

    private FixedRateLoad() {
    }

    public static void main(String[] args) throws Exception {
        String method = args[0];
        URI uri = URI.create(args[1]);
        int rate = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        List<ProcessHandle> server = args.length > 4 ? OpenLoopLoad.process(args[4]) : List.of();
        OpenLoopLoad.Run run;
        try (OpenLoopLoad load = new OpenLoopLoad(new InetSocketAddress(uri.getHost(), uri.getPort()),
                new byte[][] {KeepAliveConnection.request(method, uri.getRawPath()
                        + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()), "")}, 64)) {
            load.run(rate, 2, List.of());
            run = load.run(rate, seconds, server);
        }
        long[] latencies = run.latencyNanos().clone();
        Arrays.sort(latencies);
        Map<Integer, Integer> statuses = new TreeMap<>();
        Arrays.stream(run.statuses()).forEach(status -> statuses.merge(status, 1, Integer::sum));
        System.out.printf(Locale.ROOT, "%s %s at %d/s for %d s: %d requests in %.1f s, statuses %s; %s%n", method,
                uri, rate, seconds, latencies.length, run.seconds(), statuses, run.cpuPerRequest());
        System.out.printf(Locale.ROOT, "latency from scheduled send: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, "
                        + "p99.9 %.2f ms, max %.2f ms%n", OpenLoopLoad.percentileMillis(latencies, 50),
                OpenLoopLoad.percentileMillis(latencies, 95), OpenLoopLoad.percentileMillis(latencies, 99),
                OpenLoopLoad.percentileMillis(latencies, 99.9), latencies[latencies.length - 1] / 1e6);
    }
}
