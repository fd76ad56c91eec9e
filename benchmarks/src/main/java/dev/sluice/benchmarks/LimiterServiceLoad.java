package dev.sluice.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The limiter service under its production mix, at a fixed rate, from a process of its own: for every 4 requests, 3
 * {@code GET /delay} and 1 {@code POST /increment} (mix {@code seed}, as the seed service's workers do), or 1
 * {@code POST /acquire} in place of the increment (mix {@code acquire}), spread over 70 keys of one per-key limit
 * (70 integrations). Each request is sent at its scheduled time over one of 64 keep-alive connections and timed from
 * that schedule, so a server that stalls shows in the figures (no coordinated omission; {@link OpenLoopLoad}). Prints,
 * per endpoint and in all: count, avg, p50, p95, p99, max and the statuses, and the CPU time per request of this
 * process and, given {@code --server-pid}, of the server's.
 *
 * <p>The warm-up (default 30 s) runs at the measured rate: on two cores the server's JIT compilers take tens of
 * seconds to settle, and a run measured before then times the compilers.
 *
 * <p>With {@code --find-max-p99 MS} it runs at the given rate, then at rates 25 % higher each time, each for the
 * given seconds, until p99 exceeds MS, and reports the highest rate whose p99 stayed within it.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.LimiterServiceLoad \
 *     http://127.0.0.1:8080/api seed 500 60 [--warmup 30] [--id remote-accounts] [--find-max-p99 10] [--server-pid PID]
 * </pre>
 */
public final class LimiterServiceLoad {

    private static final int CONNECTIONS = 64;
    private static final int KEYS = 70;
    private static final int CYCLE = 4;

    private LimiterServiceLoad() {
    }

    /** What one run measured, split per endpoint. */
    private record Result(int rate, OpenLoopLoad.Run run, Map<String, long[]> latencies,
                          Map<String, Map<Integer, Integer>> statuses) {
        long[] all() {
            long[] all = run.latencyNanos().clone();
            Arrays.sort(all);
            return all;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: LimiterServiceLoad BASE_URL seed|acquire RATE SECONDS [--warmup S] [--id ID]"
                    + " [--find-max-p99 MS] [--server-pid PID]");
            System.exit(2);
        }
        URI base = URI.create(args[0].endsWith("/") ? args[0] : args[0] + "/");
        String mix = args[1];
        if (!mix.equals("seed") && !mix.equals("acquire")) {
            throw new IllegalArgumentException("mix: seed or acquire, got " + mix);
        }
        int rate = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int warmup = 30;
        String id = "remote-accounts";
        double findMaxP99 = -1;
        List<ProcessHandle> server = List.of();
        for (int i = 4; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
                case "--id" -> id = args[i + 1];
                case "--find-max-p99" -> findMaxP99 = Double.parseDouble(args[i + 1]);
                case "--server-pid" -> server = OpenLoopLoad.process(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        String counting = mix.equals("seed") ? "increment" : "acquire";
        try (OpenLoopLoad load = new OpenLoopLoad(new InetSocketAddress(base.getHost(), base.getPort()),
                requests(base.getRawPath(), id, counting), CONNECTIONS)) {
            load.run(rate, warmup, List.of());  // connections and JITs warm, unmeasured
            if (findMaxP99 < 0) {
                print(mix, run(load, counting, rate, seconds, server));
                return;
            }
            int best = -1;
            for (int current = rate; ; current = (int) Math.ceil(current * 1.25)) {
                Result result = run(load, counting, current, seconds, server);
                print(mix, result);
                double p99 = OpenLoopLoad.percentileMillis(result.all(), 99);
                if (p99 > findMaxP99) {
                    break;
                }
                best = current;
            }
            System.out.printf(Locale.ROOT, "highest fixed rate with p99 <= %.1f ms (mix %s, %d s per rate): %s%n",
                    findMaxP99, mix, seconds, best < 0 ? "none (the first rate already exceeded it)" : best + "/s");
        }
    }

    /**
     * The cycle of {@value #CYCLE} requests per key: 3 delays and 1 increment (or acquire), for {@value #KEYS} keys.
     */
    private static byte[][] requests(String basePath, String id, String counting) {
        byte[][] requests = new byte[KEYS * CYCLE][];
        for (int k = 0; k < KEYS; k++) {
            String key = basePath + "limits/" + id + "/account-" + k + "/";
            for (int d = 0; d < CYCLE - 1; d++) {
                requests[k * CYCLE + d] = KeepAliveConnection.request("GET", key + "delay", "");
            }
            // The service refuses a POST without Sluice-Client as one a page of another site could have sent.
            requests[k * CYCLE + CYCLE - 1] = KeepAliveConnection.request("POST",
                    key + counting + (counting.equals("acquire") ? "?maxWaitMs=0" : ""), "Sluice-Client: load\r\n");
        }
        return requests;
    }

    /** {@code rate} requests per second for {@code seconds}, each timed from its scheduled send. */
    private static Result run(OpenLoopLoad load, String counting, int rate, int seconds, List<ProcessHandle> server)
            throws IOException, InterruptedException {
        OpenLoopLoad.Run run = load.run(rate, seconds, server);
        Map<String, List<Long>> byKind = new TreeMap<>();
        Map<String, Map<Integer, Integer>> statuses = new TreeMap<>();
        for (int i = 0; i < run.statuses().length; i++) {
            String kind = i % CYCLE == CYCLE - 1 ? counting : "delay";
            byKind.computeIfAbsent(kind, k -> new ArrayList<>()).add(run.latencyNanos()[i]);
            statuses.computeIfAbsent(kind, k -> new TreeMap<>()).merge(run.statuses()[i], 1, Integer::sum);
        }
        Map<String, long[]> sorted = new TreeMap<>();
        byKind.forEach((kind, values) -> sorted.put(kind, values.stream().mapToLong(Long::longValue).sorted()
                .toArray()));
        return new Result(rate, run, sorted, statuses);
    }

    private static void print(String mix, Result result) {
        System.out.printf(Locale.ROOT, "mix %s at %d/s: %d requests in %.1f s (latency from scheduled send); %s%n", mix,
                result.rate(), result.run().statuses().length, result.run().seconds(), result.run().cpuPerRequest());
        result.latencies().forEach((kind, values) -> line(kind, values, result.statuses().get(kind)));
        line("all", result.all(), null);
    }

    private static void line(String kind, long[] sorted, @Nullable Map<Integer, Integer> statuses) {
        double avg = Arrays.stream(sorted).average().orElse(0) / 1e6;
        System.out.printf(Locale.ROOT, "  %-9s n=%-7d avg %7.2f ms  p50 %7.2f  p95 %7.2f  p99 %7.2f  max %8.2f ms%s%n",
                kind, sorted.length, avg, OpenLoopLoad.percentileMillis(sorted, 50),
                OpenLoopLoad.percentileMillis(sorted, 95), OpenLoopLoad.percentileMillis(sorted, 99),
                sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e6,
                statuses == null ? "" : "  statuses " + statuses);
    }
}
