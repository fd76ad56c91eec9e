package dev.sluice.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The limiter service under its production mix, at a fixed rate, from a process of its own: for every 4 requests, 3
 * {@code GET /delay} and 1 {@code POST /increment} (mix {@code seed}, as the seed service's workers do), or 1
 * {@code POST /acquire} in place of the increment (mix {@code acquire}), spread over 70 keys of one per-key limit
 * (70 integrations). Each request is sent at its scheduled time by one of 64 workers and timed from that schedule, so
 * a server that stalls shows in the figures (no coordinated omission). Prints, per endpoint and in all: count, avg,
 * p50, p95, p99, max, and the statuses.
 *
 * <p>With {@code --find-max-p99 MS} it runs at the given rate, then at rates 25 % higher each time, each for the
 * given seconds, until p99 exceeds MS, and reports the highest rate whose p99 stayed within it.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.LimiterServiceLoad \
 *     http://127.0.0.1:8080/api seed 500 60 [--warmup 10] [--id remote-accounts] [--find-max-p99 10]
 * </pre>
 */
public final class LimiterServiceLoad {

    private static final int WORKERS = 64;
    private static final int KEYS = 70;

    private LimiterServiceLoad() {
    }

    /** What one run measured. */
    private record Result(int rate, Map<String, long[]> latencies, Map<String, Map<Integer, LongAdder>> statuses,
                          double seconds) {
        long[] all() {
            return latencies.values().stream().flatMapToLong(Arrays::stream).sorted().toArray();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: LimiterServiceLoad BASE_URL seed|acquire RATE SECONDS [--warmup S] [--id ID]"
                    + " [--find-max-p99 MS]");
            System.exit(2);
        }
        String base = args[0].endsWith("/") ? args[0] : args[0] + "/";
        String mix = args[1];
        if (!mix.equals("seed") && !mix.equals("acquire")) {
            throw new IllegalArgumentException("mix: seed or acquire, got " + mix);
        }
        int rate = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int warmup = 5;
        String id = "remote-accounts";
        double findMaxP99 = -1;
        for (int i = 4; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
                case "--id" -> id = args[i + 1];
                case "--find-max-p99" -> findMaxP99 = Double.parseDouble(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        List<HttpRequest> requests = requests(base, id, mix);

        run(client, requests, rate, warmup);  // connections and JITs warm, unmeasured
        if (findMaxP99 < 0) {
            print(mix, run(client, requests, rate, seconds));
            return;
        }
        int best = -1;
        for (int current = rate; ; current = (int) Math.ceil(current * 1.25)) {
            Result result = run(client, requests, current, seconds);
            print(mix, result);
            double p99 = FixedRateLoad.percentile(result.all(), 99);
            if (p99 > findMaxP99) {
                break;
            }
            best = current;
        }
        System.out.printf(Locale.ROOT, "highest fixed rate with p99 <= %.1f ms (mix %s, %d s per rate): %s%n",
                findMaxP99, mix, seconds, best < 0 ? "none (the first rate already exceeded it)" : best + "/s");
    }

    /**
     * The cycle of 4 requests per key: 3 delays and 1 increment (or acquire), for 70 keys; request i of a run is
     * {@code requests.get(i % size)}.
     */
    private static List<HttpRequest> requests(String base, String id, String mix) {
        List<HttpRequest> requests = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            String key = base + "limits/" + id + "/account-" + k + "/";
            for (int d = 0; d < 3; d++) {
                requests.add(HttpRequest.newBuilder(URI.create(key + "delay")).timeout(Duration.ofSeconds(10))
                        .header("X-Kind", "delay").GET().build());
            }
            String counting = mix.equals("seed") ? "increment" : "acquire";
            requests.add(HttpRequest.newBuilder(URI.create(key + counting + (mix.equals("seed") ? "" : "?maxWaitMs=0")))
                    .timeout(Duration.ofSeconds(10)).header("X-Kind", counting)
                    .POST(HttpRequest.BodyPublishers.noBody()).build());
        }
        return requests;
    }

    /** {@code rate} requests per second for {@code seconds}, each timed from its scheduled send. */
    private static Result run(HttpClient client, List<HttpRequest> requests, int rate, int seconds)
            throws InterruptedException {
        int count = rate * seconds;
        long interval = 1_000_000_000L / rate;
        long[] latencies = new long[count];
        String[] kinds = new String[count];
        Map<String, Map<Integer, LongAdder>> statuses = new ConcurrentHashMap<>();
        AtomicInteger next = new AtomicInteger();
        long first = System.nanoTime();
        Thread[] workers = new Thread[WORKERS];
        for (int w = 0; w < workers.length; w++) {
            workers[w] = new Thread(() -> {
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    HttpRequest request = requests.get(i % requests.size());
                    long scheduled = first + i * interval;
                    long wait;
                    while ((wait = scheduled - System.nanoTime()) > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    int status;
                    try {
                        status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                    } catch (IOException | InterruptedException e) {
                        status = -1;
                    }
                    latencies[i] = System.nanoTime() - scheduled;
                    String kind = request.headers().firstValue("X-Kind").orElseThrow();
                    kinds[i] = kind;
                    statuses.computeIfAbsent(kind, k -> new ConcurrentHashMap<>())
                            .computeIfAbsent(status, s -> new LongAdder()).increment();
                }
            });
            workers[w].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        double elapsed = (System.nanoTime() - first) / 1e9;
        Map<String, List<Long>> byKind = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            byKind.computeIfAbsent(kinds[i], k -> new ArrayList<>()).add(latencies[i]);
        }
        Map<String, long[]> sorted = new TreeMap<>();
        byKind.forEach((kind, values) -> sorted.put(kind, values.stream().mapToLong(Long::longValue).sorted()
                .toArray()));
        return new Result(rate, sorted, statuses, elapsed);
    }

    private static void print(String mix, Result result) {
        long total = result.latencies().values().stream().mapToLong(values -> values.length).sum();
        System.out.printf(Locale.ROOT, "mix %s at %d/s: %d requests in %.1f s (latency from scheduled send)%n", mix,
                result.rate(), total, result.seconds());
        result.latencies().forEach((kind, values) -> line(kind, values, result.statuses().get(kind)));
        line("all", result.all(), null);
    }

    private static void line(String kind, long[] sorted, Map<Integer, LongAdder> statuses) {
        double avg = Arrays.stream(sorted).average().orElse(0) / 1e6;
        System.out.printf(Locale.ROOT, "  %-9s n=%-7d avg %7.2f ms  p50 %7.2f  p95 %7.2f  p99 %7.2f  max %8.2f ms%s%n",
                kind, sorted.length, avg, FixedRateLoad.percentile(sorted, 50), FixedRateLoad.percentile(sorted, 95),
                FixedRateLoad.percentile(sorted, 99), sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e6,
                statuses == null ? "" : "  statuses " + new TreeMap<>(statuses));
    }
}
