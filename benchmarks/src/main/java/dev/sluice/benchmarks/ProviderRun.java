package dev.sluice.benchmarks;

import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.service.LimiterService;
import dev.sluice.service.LimitsFile;
import dev.sluice.service.client.LimiterClient;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LocalCounterStore;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;

/**
 * The limiter service keeping a fleet of workers inside a language-model provider's limits in tokens and requests at
 * once (issue 34): {@code workers} threads, each a worker of its own with the Java client, call a simulated provider
 * that enforces {@code tokens} tokens and {@code requests} calls in any 60 s (a sliding window, counting each call's
 * tokens when it arrives, as providers count a call when they accept it). Before each call a worker reserves its
 * {@code max_tokens} (random in {@code estimate}, a range) at the limiter service, waits {@code Retry-After} when
 * refused, calls the provider, which writes a random number of tokens up to that (at least 1) and takes a random time
 * in {@code latencyMs} to answer, then settles the reservation at what the call used. The service's id limits the same
 * figures over {@code 60 + margin} seconds on the sliding log: the margin covers the time between a reservation and
 * the call's arrival at the provider.
 *
 * <p>Two instances of the service share the store ({@code store=hazelcast}: each a member of a two-member cluster in
 * this JVM; {@code store=local}: one local store), each worker reserving through one and settling through the other
 * (one signing key). The claim: the provider never refuses a call. Prints the calls, the provider's refusals (the run
 * exits 1 when there is one), the most tokens and calls it saw in any 60 s, the tokens used per minute against its
 * limit, the reservations refused, and the latency of a reserve and a settle.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.ProviderRun \
 *     workers=16 seconds=600 store=hazelcast tokens=10000 requests=100 margin=1 estimate=20-400 latencyMs=200-2000
 * </pre>
 */
public final class ProviderRun {

    private static final Map<String, String> DEFAULTS = Map.of("workers", "16", "seconds", "600", "store",
            "hazelcast", "tokens", "10000", "requests", "100", "margin", "1", "estimate", "20-400", "latencyMs",
            "200-2000");
    private static final String ID = "provider";
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final String SIGNING_KEY = "provider-run-signing-key-0123456789abcdef";

    private ProviderRun() {
    }

    public static void main(String[] args) throws Exception {
        RunOptions options = RunOptions.parse(DEFAULTS, args);
        System.out.println("ProviderRun " + options);
        long tokens = Long.parseLong(options.get("tokens"));
        int requests = Integer.parseInt(options.get("requests"));
        long windowSeconds = 60 + Long.parseLong(options.get("margin"));
        String limits = String.format(Locale.ROOT, """
                {"limits": {"%s": {"algorithm": "sliding_window_log",
                  "limits": [{"permits": %d, "period": "%ds"}, {"permits": %d, "period": "%ds", "unit": "tokens"}]}}}
                """, ID, requests, windowSeconds, tokens, windowSeconds);
        SimulatedProvider provider = new SimulatedProvider(requests, tokens);
        boolean hazelcast = switch (options.get("store")) {
            case "hazelcast" -> true;
            case "local" -> false;
            default -> throw new IllegalArgumentException("store: hazelcast or local, got " + options.get("store"));
        };
        try (Stores stores = hazelcast ? Stores.cluster() : Stores.local()) {
            List<Server> servers = new ArrayList<>();
            try {
                for (CounterStore store : stores.stores()) {
                    servers.add(serve(LimiterService.builder().limits(LimitsFile.parse("limits.json", limits))
                            .store(store).permitSigningKey(SIGNING_KEY).build()));
                }
                Fleet fleet = new Fleet(servers, provider, range(options.get("estimate")),
                        range(options.get("latencyMs")));
                long seconds = Long.parseLong(options.get("seconds"));
                fleet.run(Integer.parseInt(options.get("workers")), TimeUnit.SECONDS.toNanos(seconds));
                boolean held = report(fleet, provider, seconds, tokens, requests);
                if (!held) {
                    System.exit(1);
                }
            } finally {
                for (Server server : servers) {
                    server.stop();
                }
            }
        }
    }

    private static long[] range(String text) {
        String[] bounds = text.split("-");
        long[] range = {Long.parseLong(bounds[0]), Long.parseLong(bounds[bounds.length - 1])};
        if (range[0] < 1 || range[1] < range[0]) {
            throw new IllegalArgumentException("expected a range such as 20-400, got " + text);
        }
        return range;
    }

    private static long random(long[] range) {
        return ThreadLocalRandom.current().nextLong(range[0], range[1] + 1);
    }

    /** The service on Jetty at {@code http://127.0.0.1:<port>/api/}. */
    private static Server serve(LimiterService service) throws Exception {
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.addServlet(new ServletHolder(new ServletContainer(new ResourceConfig().register(service))), "/api/*");
        return HttpOverheadServer.serve(context, 0);
    }

    private static String base(Server server) {
        return "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort() + "/api";
    }

    private static boolean report(Fleet fleet, SimulatedProvider provider, long seconds, long tokens, int requests) {
        double minutes = seconds / 60.0;
        System.out.printf(Locale.ROOT, "%d workers, %d s: %d calls, %d tokens (%.0f tokens and %.1f calls a minute:"
                        + " %.1f %% and %.1f %% of the provider's limits)%n", fleet.workers, seconds,
                provider.accepted(), provider.tokensAccepted(), provider.tokensAccepted() / minutes,
                provider.accepted() / minutes, 100.0 * provider.tokensAccepted() / minutes / tokens,
                100.0 * provider.accepted() / minutes / requests);
        System.out.printf(Locale.ROOT, "provider refusals: %d (most in any 60 s: %d tokens of %d, %d calls of %d)%n",
                provider.refused(), provider.mostTokens(), tokens, provider.mostCalls(), requests);
        System.out.printf(Locale.ROOT, "reservations refused (429, retried after Retry-After): %d; settles: %d (%d"
                        + " already settled); errors: %d%n", fleet.refusedReservations.get(), fleet.settles.get(),
                fleet.alreadySettled.get(), fleet.errors.get());
        System.out.printf(Locale.ROOT, "latency, ms: reserve p50 %.2f p99 %.2f max %.2f; settle p50 %.2f p99 %.2f"
                        + " max %.2f%n", fleet.reserve.percentile(50), fleet.reserve.percentile(99),
                fleet.reserve.percentile(100), fleet.settle.percentile(50), fleet.settle.percentile(99),
                fleet.settle.percentile(100));
        boolean held = provider.refused() == 0 && fleet.errors.get() == 0 && fleet.alreadySettled.get() == 0;
        System.out.println(held ? "held: the provider refused no call" : "NOT HELD");
        return held;
    }

    /** The stores the two instances of the service count in. */
    private record Stores(List<CounterStore> stores, AutoCloseable closing) implements AutoCloseable {

        static Stores local() {
            LocalCounterStore store = new LocalCounterStore();
            return new Stores(List.of(store, store), store::close);
        }

        static Stores cluster() throws Exception {
            BenchmarkCluster cluster = BenchmarkCluster.start(false);
            List<CounterStore> stores = new ArrayList<>();
            for (var member : cluster.inThisJvm()) {
                HazelcastCounterStore store = HazelcastCounterStore.using(member);
                BenchmarkCluster.await("settles by id", () -> BenchmarkCluster.settlesById(store));
                stores.add(store);
            }
            return new Stores(stores, () -> {
                for (CounterStore store : stores) {
                    store.close();
                }
                cluster.close();
            });
        }

        @Override
        public void close() throws Exception {
            closing.close();
        }
    }

    /**
     * A provider's limits: at most {@code requests} calls and {@code tokens} tokens in any 60 s, each call counted
     * with its tokens when it arrives; a call over either is refused. Thread-safe (one lock).
     */
    static final class SimulatedProvider {
        private final int requests;
        private final long tokens;
        /** The accepted calls of the last 60 s: arrival (nanoTime) and tokens. */
        private final ArrayDeque<long[]> window = new ArrayDeque<>();
        private long tokensInWindow;
        private long accepted;
        private long refused;
        private long tokensAccepted;
        private long mostTokens;
        private int mostCalls;

        SimulatedProvider(int requests, long tokens) {
            this.requests = requests;
            this.tokens = tokens;
        }

        /** A call of {@code used} tokens arriving now: whether the provider accepts it. */
        synchronized boolean call(long used) {
            long now = System.nanoTime();
            while (!window.isEmpty() && window.peekFirst()[0] <= now - WINDOW_NANOS) {
                tokensInWindow -= window.removeFirst()[1];
            }
            if (window.size() + 1 > requests || tokensInWindow + used > tokens) {
                refused++;
                System.out.printf(Locale.ROOT, "REFUSED: a call of %d tokens, with %d calls and %d tokens in the last"
                        + " 60 s%n", used, window.size(), tokensInWindow);
                return false;
            }
            window.addLast(new long[] {now, used});
            tokensInWindow += used;
            accepted++;
            tokensAccepted += used;
            mostTokens = Math.max(mostTokens, tokensInWindow);
            mostCalls = Math.max(mostCalls, window.size());
            return true;
        }

        synchronized long accepted() {
            return accepted;
        }

        synchronized long refused() {
            return refused;
        }

        synchronized long tokensAccepted() {
            return tokensAccepted;
        }

        synchronized long mostTokens() {
            return mostTokens;
        }

        synchronized int mostCalls() {
            return mostCalls;
        }
    }

    /** Latencies in nanoseconds, kept whole (a run makes some thousands). Thread-safe. */
    private static final class Latencies {
        private long[] values = new long[1024];
        private int size;

        synchronized void add(long nanos) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = nanos;
        }

        synchronized double percentile(double percentile) {
            if (size == 0) {
                return 0;
            }
            long[] sorted = Arrays.copyOf(values, size);
            Arrays.sort(sorted);
            int index = (int) Math.min(size - 1, Math.max(0, Math.ceil(percentile / 100 * size) - 1));
            return sorted[index] / 1e6;
        }
    }

    /** The workers: each reserves through one instance, calls the provider, and settles through the other. */
    private static final class Fleet {
        private final List<Server> servers;
        private final SimulatedProvider provider;
        private final long[] estimate;
        private final long[] latencyMs;
        private final AtomicLong refusedReservations = new AtomicLong();
        private final AtomicLong settles = new AtomicLong();
        private final AtomicLong alreadySettled = new AtomicLong();
        private final AtomicLong errors = new AtomicLong();
        private final Latencies reserve = new Latencies();
        private final Latencies settle = new Latencies();
        private int workers;

        Fleet(List<Server> servers, SimulatedProvider provider, long[] estimate, long[] latencyMs) {
            this.servers = servers;
            this.provider = provider;
            this.estimate = estimate;
            this.latencyMs = latencyMs;
        }

        void run(int count, long nanos) throws Exception {
            workers = count;
            long end = System.nanoTime() + nanos;
            ExecutorService pool = Executors.newFixedThreadPool(count);
            List<Client> clients = new ArrayList<>();
            try {
                List<Future<?>> running = new ArrayList<>();
                for (int w = 0; w < count; w++) {
                    Client client = ClientBuilder.newClient();
                    clients.add(client);
                    LimiterClient reserving = LimiterClient.of(client.target(base(servers.get(w % servers.size()))));
                    LimiterClient settling = LimiterClient.of(client.target(base(servers.get((w + 1)
                            % servers.size()))));
                    running.add(pool.submit(() -> work(reserving, settling, end)));
                }
                for (Future<?> worker : running) {
                    worker.get();
                }
            } finally {
                pool.shutdownNow();
                clients.forEach(Client::close);
            }
        }

        /** One worker's calls until {@code end}. */
        private void work(LimiterClient reserving, LimiterClient settling, long end) {
            while (System.nanoTime() < end) {
                try {
                    long maxTokens = random(estimate);
                    long started = System.nanoTime();
                    LimiterClient.Reservation reservation = reserving.reserve(ID, null, maxTokens);
                    reserve.add(System.nanoTime() - started);
                    if (!reservation.granted()) {
                        refusedReservations.incrementAndGet();
                        // Workers refused at once would come back at once: a little jitter spreads them.
                        Thread.sleep(reservation.retryAfter().toMillis() + ThreadLocalRandom.current().nextLong(20));
                        continue;
                    }
                    long used = random(new long[] {1, maxTokens});
                    provider.call(used);
                    Thread.sleep(random(latencyMs));
                    started = System.nanoTime();
                    LimiterClient.Settled settled = settling.settle(ID, null, reservation.token(), used);
                    settle.add(System.nanoTime() - started);
                    settles.incrementAndGet();
                    if (settled.alreadySettled()) {
                        alreadySettled.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (RuntimeException e) {
                    errors.incrementAndGet();
                    System.out.println("error: " + e);
                }
            }
        }
    }
}
