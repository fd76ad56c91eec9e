package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ManualTimeSource;
import dev.sluice.hazelcast.ClusterSupport;
import dev.sluice.hazelcast.HazelcastCounterStore;
import dev.sluice.service.client.LimiterClient;
import dev.sluice.store.FailurePolicyStore;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Two application instances on Jetty 12, each with its own Hazelcast member of one cluster (real members in this JVM,
 * TCP-IP on 127.0.0.1, multicast off, free ports), serving the limiter service: every instance answers alike, and
 * acquire never hands out more slots than the limit in any window, however many workers ask at once; a permit taken
 * through one instance is released through the other, and never more than the limit are held. The members and the
 * services read one manual clock, so the slots' times and the leases' ends are exact.
 */
@Tag("cluster")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterServiceTest {

    private static final String LIMITS = """
            {"limits": {
              "remote-stepped": {"permits": 5, "period": "2s", "perKey": true},
              "remote-log": {"algorithm": "sliding_window_log", "permits": 5, "period": "2s", "perKey": true},
              "partner-api": {"permits": 10, "period": "1m"},
              "exports": {"concurrency": 3, "maxHold": "1m", "perKey": true}
            }}""";
    private static final String TOKEN = "cluster-operations-token";
    private static final String SIGNING_KEY = "cluster-permit-signing-key-0123456789";

    private final ManualTimeSource time = new ManualTimeSource();
    private List<HazelcastCounterStore> members = List.of();
    private final List<TestServer> instances = new ArrayList<>();
    private int run;

    @BeforeAll
    void startCluster() throws Exception {
        members = ClusterSupport.startCluster(2, time);
        for (HazelcastCounterStore member : members) {
            instances.add(TestServer.start(new ResourceConfig().register(LimiterService.builder()
                    .limits(LimitsFile.parse("limits.json", LIMITS)).store(member).timeSource(time)
                    .operationsToken(TOKEN).permitSigningKey(SIGNING_KEY).build())));
        }
    }

    @AfterAll
    void stopCluster() throws Exception {
        for (TestServer instance : instances) {
            instance.close();
        }
        ClusterSupport.closeAll(members);
    }

    private LimiterClient client(int instance) {
        return instances.get(instance).client();
    }

    @Test
    void seedFlow_delayOnOneInstanceIncrementOnTheOther_answerAlike() {
        String key = "seed-" + ++run;
        Instant made = Instant.ofEpochMilli(time.nanos() / 1_000_000 - 1_500);
        for (int i = 0; i < 5; i++) {
            assertThat(client(i % 2).delay("remote-stepped", key, 1).delay()).isZero();
            client((i + 1) % 2).increment("remote-stepped", key, 1, made);
        }

        for (int i = 0; i < 2; i++) {
            LimiterClient.Delay full = client(i).delay("remote-stepped", key, 1);
            assertThat(full.remaining()).hasValue(0);
            assertThat(full.delay()).as("made 1.5 s ago, they leave the 2 s window in 0.5 s")
                    .isEqualTo(Duration.ofMillis(500));
            assertThat(full.nextAt()).isEqualTo(made.plusSeconds(2));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"remote-stepped, 1990", "remote-log, 2000"})
    void acquire_sixteenWorkersOnTwoInstances_neverExceedTheLimitInAnyWindow(String id, long windowMillis)
            throws Exception {
        // The stepped window (10 ms steps for a 2 s window) holds its limit in any window of its length less a step;
        // the sliding log in any window of its full length.
        String key = "workers-" + ++run;
        int workers = 16;
        int rounds = 6;
        Random random = new Random(run);
        // Between rounds the clock moves on by 0 to 900 ms, in whole milliseconds.
        CyclicBarrier round = new CyclicBarrier(workers, () -> time.advance(Duration.ofMillis(random.nextInt(901))));
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<Long> sendAt = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                LimiterClient client = client(w % 2);
                done.add(pool.submit(() -> {
                    for (int r = 0; r < rounds; r++) {
                        LimiterClient.Slot slot = client.acquire(id, key, 1, Duration.ofMinutes(1));
                        assertThat(slot.granted()).as("a slot within a minute").isTrue();
                        sendAt.add(slot.at().toEpochMilli());
                        round.await(60, TimeUnit.SECONDS);
                    }
                    return null;
                }));
            }
            for (Future<?> worker : done) {
                worker.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        List<Long> sorted = new ArrayList<>(sendAt);
        Collections.sort(sorted);
        assertThat(sorted).hasSize(workers * rounds);
        int most = 0;
        for (int i = 0; i < sorted.size(); i++) {
            int inWindow = 0;
            for (int j = i; j < sorted.size() && sorted.get(j) < sorted.get(i) + windowMillis; j++) {
                inWindow++;
            }
            most = Math.max(most, inWindow);
        }
        assertThat(most).as("the most sends in any %d ms window", windowMillis).isEqualTo(5);
    }

    @Test
    void badInput_onEitherInstance_isRefusedClearlyAndCountsNothing() throws Exception {
        TestServer first = instances.get(0);
        TestServer second = instances.get(1);

        assertThat(first.get("limits/no-such/delay").statusCode()).isEqualTo(404);
        assertThat(second.post("limits/partner-api/increment?at=soon", "").body())
                .contains("\"status\":400", "at: expected epoch milliseconds");
        assertThat(first.post("limits/partner-api/increment?cost=11", "").body())
                .contains("\"status\":400", "cost: expected an integer from 1 to 10");
        assertThat(second.post("limits/partner-api/acquire?cost=0", "").statusCode()).isEqualTo(400);
        HttpResponse<String> noCredential = second.post("limits/partner-api/reset", "");
        assertThat(noCredential.statusCode()).isEqualTo(401);
        assertThat(noCredential.headers().firstValue("WWW-Authenticate")).isPresent();

        LimiterClient.KeyState state = client(0).withBearerToken(TOKEN).state("partner-api", null);
        assertThat(state.used()).isZero();
        assertThat(client(1).delay("partner-api", null, 1).remaining()).hasValue(10);
    }

    @Test
    void startLine_clusterStoreBehindAFailurePolicy_namesModeMembersLimitsAndPolicy() {
        LimiterService service = LimiterService.builder().limits(LimitsFile.parse("limits.json", LIMITS))
                .store(FailurePolicyStore.allowing(members.get(0), Duration.ofSeconds(1))).build();

        assertThat(service.startLine()).isEqualTo("Sluice limiter service started: store "
                + members.get(0).services().health().mode() + " (2 members), 4 limit ids from limits.json,"
                + " failure policy allow,"
                + " timeout 1s, callers open, operations off, longest wait 60000 ms");
    }

    @Test
    void reset_onOneInstance_isSeenByTheOther() {
        String key = "reset-" + ++run;
        client(0).increment("remote-log", key, 5, null);
        assertThat(client(1).delay("remote-log", key, 1).remaining()).hasValue(0);

        client(1).withBearerToken(TOKEN).reset("remote-log", key);

        assertThat(client(0).delay("remote-log", key, 1).remaining()).hasValue(5);
    }

    @Test
    void permit_acquiredOnOneInstance_releasedThroughTheOther() {
        String key = "release-" + ++run;
        LimiterClient.Permit first = client(0).acquirePermit("exports", key, Duration.ofSeconds(30));
        client(1).acquirePermit("exports", key, Duration.ofSeconds(30));
        client(0).acquirePermit("exports", key, Duration.ofSeconds(30));
        assertThat(client(1).acquirePermit("exports", key).granted()).isFalse();

        client(1).releasePermit("exports", key, first.token());
        client(1).releasePermit("exports", key, first.token());

        assertThat(client(1).acquirePermit("exports", key).granted()).isTrue();
        assertThat(client(0).acquirePermit("exports", key).granted()).isFalse();
    }

    @Test
    void permits_sixteenWorkersThroughBothInstances_neverHoldMoreThanTheLimit() throws Exception {
        String key = "in-flight-" + ++run;
        int workers = 16;
        int rounds = 20;
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger granted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                LimiterClient taking = client(w % 2);
                LimiterClient releasing = client((w + 1) % 2);
                done.add(pool.submit(() -> {
                    for (int r = 0; r < rounds; r++) {
                        LimiterClient.Permit permit = taking.acquirePermit("exports", key, Duration.ofSeconds(30));
                        if (permit.granted()) {
                            granted.incrementAndGet();
                            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                            Thread.yield();
                            inFlight.decrementAndGet();
                            releasing.releasePermit("exports", key, permit.token());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : done) {
                worker.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(most.get()).as("the most permits held at once").isBetween(1, 3);
        assertThat(granted.get()).isPositive();
        for (int i = 0; i < 3; i++) {
            assertThat(client(i % 2).acquirePermit("exports", key).granted()).as("none held at the end").isTrue();
        }
    }

    @Test
    void permit_workerThatNeverReleases_returnsAtTheLeasesEnd() {
        String key = "crashed-" + ++run;
        for (int i = 0; i < 3; i++) {
            assertThat(client(i % 2).acquirePermit("exports", key, Duration.ofSeconds(10)).granted()).isTrue();
        }
        assertThat(client(0).acquirePermit("exports", key).granted()).isFalse();

        time.advance(Duration.ofSeconds(10));

        for (int i = 0; i < 3; i++) {
            assertThat(client(i % 2).acquirePermit("exports", key).granted()).as("permit %d back", i).isTrue();
        }
    }
}
