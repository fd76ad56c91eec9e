package dev.sluice.jersey.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.limiter.RateLimitExceededException;
import dev.sluice.servlet.JettyServer;
import dev.sluice.store.LocalCounterStore;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Real Jersey clients against a "remote API" on a real Jetty, counting in a real two-member Hazelcast cluster. */
@Tag("cluster")
class RateLimitClientFilterTest {

    private static final int WORKERS = 3;

    private static List<HazelcastCounterStore> cluster;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = ClusterSupport.startCluster(2, TimeSource.system());
    }

    @AfterAll
    static void stopCluster() {
        ClusterSupport.closeAll(cluster);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }

    private JettyServer remote(RemoteApi api) throws Exception {
        JettyServer server = JettyServer.start(context -> context.addServlet(new ServletHolder(api), "/*"));
        resources.add(server);
        return server;
    }

    /** A Jersey client whose filter counts in {@code store}. */
    private Client client(ClientRule rule, dev.sluice.store.CounterStore store, Duration maxWait) {
        Client client = ClientBuilder.newClient()
                .register(RateLimitClientFilter.builder().rule(rule).store(store).maxWait(maxWait).build());
        resources.add(client::close);
        return client;
    }

    /**
     * When a worker last had a 429 returned to it ({@link System#nanoTime()}): by then its filter has recorded the
     * pause in the cluster; -1 before.
     */
    private final AtomicLong last429ReturnedAt = new AtomicLong(-1);

    /** Runs {@code requests} calls spread over {@link #WORKERS} workers, worker i counting in member i % 2. */
    private List<Integer> runFleet(ClientRule rule, JettyServer remote, int requests) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
        try {
            List<Future<List<Integer>>> workers = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                Client client = client(rule, cluster.get(w % cluster.size()), Duration.ofSeconds(60));
                int share = requests / WORKERS + (w < requests % WORKERS ? 1 : 0);
                workers.add(pool.submit(() -> {
                    List<Integer> statuses = new ArrayList<>();
                    for (int i = 0; i < share; i++) {
                        try (Response response = client.target(remote.uri("/api/items")).request().get()) {
                            statuses.add(response.getStatus());
                            if (response.getStatus() == 429) {
                                last429ReturnedAt.set(System.nanoTime());
                            }
                        }
                    }
                    return statuses;
                }));
            }
            List<Integer> statuses = new ArrayList<>();
            for (Future<List<Integer>> worker : workers) {
                statuses.addAll(worker.get(5, TimeUnit.MINUTES));
            }
            return statuses;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void fleetOnTwoMembers_neverExceedsTheRemoteLimitInAnyWindow() throws Exception {
        int permits = 10;
        long window = Duration.ofSeconds(1).toNanos();
        RemoteApi api = new RemoteApi(permits, window);
        JettyServer remote = remote(api);
        // The client's window is longer than the remote's by the variation in request transit it tolerates.
        ClientRule rule = ClientRule.builder("fleet").host("127.0.0.1").path("/api/**")
                .policy(Policy.of(Algorithm.STEPPED_SLIDING_WINDOW, Limit.of(permits, Duration.ofMillis(1300))))
                .build();

        List<Integer> statuses = runFleet(rule, remote, 5 * permits);

        assertThat(statuses).hasSize(5 * permits).containsOnly(200);
        assertThat(api.rejections()).isEmpty();
        List<Long> arrivals = api.arrivals().stream().sorted().toList();
        for (int i = 0; i + permits < arrivals.size(); i++) {
            assertThat(arrivals.get(i + permits) - arrivals.get(i))
                    .as("arrivals %d and %d are within one window", i, i + permits).isGreaterThanOrEqualTo(window);
        }
    }

    @Test
    void remote429WithRetryAfter_pausesEveryWorker() throws Exception {
        RemoteApi api = new RemoteApi(Integer.MAX_VALUE, 1);
        JettyServer remote = remote(api);
        ClientRule rule = ClientRule.builder("paused").host("127.0.0.1")
                .policy(Policy.of(Algorithm.GCRA, Limit.of(50, Duration.ofSeconds(1)))).build();
        ExecutorService starter = Executors.newSingleThreadExecutor();
        try {
            Future<List<Integer>> fleet = starter.submit(() -> runFleet(rule, remote, 90));
            ClusterSupport.await(() -> api.arrivals().size() >= 10, Duration.ofSeconds(30), "the fleet to start");
            api.rejectNextWithRetryAfter("1");
            List<Integer> statuses = fleet.get(5, TimeUnit.MINUTES);

            assertThat(statuses).containsOnlyOnce(429);
        } finally {
            starter.shutdownNow();
        }
        // From when the 429 was returned to its worker, the pause is in the cluster: each other worker can have at most
        // one request that passed its check before that still arriving. (Between the server's answer and then, the
        // others may send more: how many depends on the machine's speed, so that span is not counted.)
        long pauseRecorded = last429ReturnedAt.get();
        long pauseEnd = api.pausedAt() + Duration.ofSeconds(1).toNanos();
        long duringPause = api.arrivals().stream().filter(t -> t > pauseRecorded && t < pauseEnd).count();
        long afterPause = api.arrivals().stream().filter(t -> t >= pauseEnd).count();
        assertThat(duringPause).as("only requests already past their check when the pause was recorded")
                .isLessThanOrEqualTo(WORKERS - 1);
        assertThat(afterPause).as("the fleet resumes after the pause").isPositive();
    }

    @Test
    void noPermitWithinMaxWait_failsTheCall_namingTheLimit() throws Exception {
        JettyServer remote = remote(new RemoteApi(Integer.MAX_VALUE, 1));
        ClientRule rule = ClientRule.builder("scarce").path("/api/**")
                .policy(Policy.of(Algorithm.GCRA, Limit.of(1, Duration.ofMinutes(1)).named("scarce:1/1m"))).build();
        LocalCounterStore store = new LocalCounterStore();
        resources.add(store);
        Client client = client(rule, store, Duration.ofMillis(100));

        try (Response first = client.target(remote.uri("/api/a")).request().get()) {
            assertThat(first.getStatus()).isEqualTo(200);
        }
        assertThatThrownBy(() -> client.target(remote.uri("/api/b")).request().get())
                .isInstanceOf(ProcessingException.class)
                .hasCauseInstanceOf(RateLimitExceededException.class)
                .hasMessageContaining("rate limit 'scarce:1/1m' exceeded");
        try (Response other = client.target(remote.uri("/elsewhere")).request().get()) {
            assertThat(other.getStatus()).as("a path no rule covers").isEqualTo(200);
        }
    }

    @Test
    void retryAfter_readsSecondsAndHttpDates() {
        long now = new ManualTimeSource().nanos();
        assertThat(RateLimitClientFilter.retryAfter("3", now)).contains(Duration.ofSeconds(3));
        String inThirtySeconds = httpDate(now, Duration.ofSeconds(30));
        assertThat(RateLimitClientFilter.retryAfter(inThirtySeconds, now)).as(inThirtySeconds)
                .contains(Duration.ofSeconds(30));
        assertThat(RateLimitClientFilter.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now)).as("in the past").isEmpty();
        assertThat(RateLimitClientFilter.retryAfter(httpDate(now, Duration.ZERO), now)).as("now").isEmpty();
        assertThat(RateLimitClientFilter.retryAfter("0", now)).isEmpty();
        assertThat(RateLimitClientFilter.retryAfter("soon", now)).isEmpty();
        assertThat(RateLimitClientFilter.retryAfter(null, now)).isEmpty();
    }

    @Test
    void remote429WithHttpDate_pausesUntilThatDateOnTheFiltersClock() throws Exception {
        RemoteApi api = new RemoteApi(Integer.MAX_VALUE, 1);
        JettyServer remote = remote(api);
        ClientRule rule = ClientRule.builder("dated").path("/api/**")
                .policy(Policy.of(Algorithm.GCRA, Limit.of(100, Duration.ofSeconds(1)))).build();
        // Far from the wall clock: a filter reading the machine's clock would see this date long past (or far ahead).
        ManualTimeSource time = new ManualTimeSource();
        LocalCounterStore store = new LocalCounterStore(time, 1_000);
        resources.add(store);
        Client client = ClientBuilder.newClient().register(RateLimitClientFilter.builder().rule(rule).store(store)
                .timeSource(time).maxWait(Duration.ofMinutes(1)).build());
        resources.add(client::close);

        api.rejectNextWithRetryAfter(httpDate(time.nanos(), Duration.ofSeconds(30)));
        try (Response rejected = client.target(remote.uri("/api/a")).request().get()) {
            assertThat(rejected.getStatus()).isEqualTo(429);
        }
        long pausedAt = time.nanos();
        try (Response next = client.target(remote.uri("/api/b")).request().get()) {
            assertThat(next.getStatus()).isEqualTo(200);
        }

        assertThat(Duration.ofNanos(time.nanos() - pausedAt)).as("waited on the manual clock until the date")
                .isEqualTo(Duration.ofSeconds(30));
        assertThat(api.arrivals()).hasSize(1);
    }

    /** The HTTP date {@code offset} after {@code epochNanos}, whole seconds. */
    private static String httpDate(long epochNanos, Duration offset) {
        return DateTimeFormatter.RFC_1123_DATE_TIME.format(
                Instant.ofEpochSecond(0, epochNanos).plus(offset).atZone(ZoneOffset.UTC));
    }
}
