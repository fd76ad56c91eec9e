package dev.sluice.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A bounded, fixed-rate HTTP load: {@code rate} requests per second for {@code seconds}, each sent at its scheduled
 * time by one of 64 workers sharing one HttpClient (so at most 64 concurrent requests), and timed from that scheduled
 * time, so a stalled server is not hidden by a load generator that waits for it (no coordinated omission). Prints
 * p50/p95/p99/p99.9 and the statuses seen.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.FixedRateLoad GET|POST URL RATE
 * SECONDS}
 */
public final class FixedRateLoad {

    private static final int WORKERS = 64;

    private FixedRateLoad() {
    }

    public static void main(String[] args) throws Exception {
        String method = args[0];
        URI uri = URI.create(args[1]);
        int rate = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int total = rate * seconds;
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody()).build();

        // Warm up the connections and both JITs for 2 seconds at the same rate, unmeasured.
        run(client, request, rate, 2 * rate, null, new AtomicInteger(), new AtomicInteger());
        long[] latencies = new long[total];
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        long start = System.nanoTime();
        run(client, request, rate, total, latencies, ok, other);
        long elapsed = System.nanoTime() - start;
        Arrays.sort(latencies);
        System.out.printf(Locale.ROOT, "%s %s at %d/s for %d s: %d requests in %.1f s, 2xx %d, other %d%n", method, uri,
                rate, seconds, total, elapsed / 1e9, ok.get(), other.get());
        System.out.printf(Locale.ROOT, "latency from scheduled send: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, "
                        + "p99.9 %.2f ms, max %.2f ms%n", percentile(latencies, 50), percentile(latencies, 95),
                percentile(latencies, 99), percentile(latencies, 99.9), latencies[total - 1] / 1e6);
    }

    /**
     * Sends {@code count} requests at {@code rate} per second from {@link #WORKERS} threads over one HttpClient: at
     * most {@link #WORKERS} concurrent requests however slow the server gets. A request is sent at its scheduled time,
     * or as soon as a worker is free when all were busy; its latency counts from the schedule.
     */
    private static void run(HttpClient client, HttpRequest request, int rate, int count, long[] latencies,
                            AtomicInteger ok, AtomicInteger other) throws InterruptedException {
        long interval = 1_000_000_000L / rate;
        long first = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        Thread[] workers = new Thread[WORKERS];
        for (int w = 0; w < workers.length; w++) {
            workers[w] = new Thread(() -> {
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    long scheduled = first + i * interval;
                    long wait;
                    while ((wait = scheduled - System.nanoTime()) > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    boolean success;
                    try {
                        success = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() / 100 == 2;
                    } catch (IOException | InterruptedException e) {
                        success = false;
                    }
                    if (latencies != null) {
                        latencies[i] = System.nanoTime() - scheduled;
                    }
                    (success ? ok : other).incrementAndGet();
                }
            });
            workers[w].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
    }

    static double percentile(long[] sorted, double percent) {
        int index = (int) Math.ceil(percent / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
    }
}
