package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.TimeSource;
import dev.sluice.store.LocalCounterStore;
import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A flood of made-up keys at the limiter service's {@code perKey} ids (issue 38, Measure), over real HTTP on Jetty 12
 * and Jersey, bounded in requests ({@code -Dsluice.flood.requests}, default 3,000) and seconds
 * ({@code -Dsluice.flood.seconds}, default 120), on a local store of at most 500 keys
 * ({@code -Dsluice.flood.max-keys}) and the system clock: each made-up key takes a slot, or a permit it never releases
 * (leased for an hour), or a reservation it settles (which leaves a mark). Every answer is a 200, 429 or 503; the
 * store never holds more keys or permit keys than its bound (and the threads racing at it); permits of keys past it are
 * refused as the limiter being unavailable, never let through; a real key counted before is still counted exactly (its
 * counter never forgotten to make room), and a new key is refused, never let through. The heap after a full GC is
 * printed; RELIABILITY.md holds it for a longer run.
 */
class MadeUpKeysFloodServiceTest {

    private static final int REQUESTS = Integer.getInteger("sluice.flood.requests", 3_000);
    private static final long SECONDS = Long.getLong("sluice.flood.seconds", 120);
    private static final long MAX_KEYS = Long.getLong("sluice.flood.max-keys", 500);
    private static final int THREADS = 4;
    private static final String LIMITS = """
            {"limits": {
              "remote": {"permits": 5, "period": "1d", "perKey": true},
              "exports": {"concurrency": 2, "maxHold": "1h", "perKey": true},
              "llm": {"algorithm": "token_bucket", "perKey": true, "permits": 1000, "period": "1d", "unit": "tokens"}
            }}""";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LocalCounterStore store = new LocalCounterStore(TimeSource.system(), MAX_KEYS);
    private TestServer server;

    @AfterEach
    void stop() {
        server.close();
        store.close();
    }

    @Test
    void flood_madeUpKeysAtPerKeyIds_staysWithinTheStoresBoundAndNeverLetsAKeyPast() throws Exception {
        server = TestServer.start(new ResourceConfig().register(LimiterService.builder()
                .limits(LimitsFile.parse("limits.json", LIMITS)).store(store).build()));
        assertThat(grantedOf("remote", "real-client", 3)).as("a real key's first 3 of 5").isEqualTo(3);
        long heapBefore = heapAfterGc();

        Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
        AtomicInteger next = new AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        ExecutorService clients = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(clients.submit(() -> {
                    for (int i = next.getAndIncrement(); i < REQUESTS && System.nanoTime() < deadline;
                         i = next.getAndIncrement()) {
                        for (HttpResponse<String> answer : madeUp(i)) {
                            statuses.computeIfAbsent(answer.statusCode(), any -> new LongAdder()).increment();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get(SECONDS + 60, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        long heapAfter = heapAfterGc();

        System.out.printf("flood of %d made-up keys at the service: answers %s, %d keys, %d permit keys, heap after GC"
                + " %.1f MB before, %.1f MB after%n", Math.min(next.get(), REQUESTS), statuses, store.size(),
                store.permitKeys(), heapBefore / 1e6, heapAfter / 1e6);
        assertThat(statuses.keySet()).as("answers").isSubsetOf(200, 429, 503);
        assertThat(statuses.get(503)).as("made-up keys refused once the store is full").isNotNull();
        assertThat(store.size()).as("counter keys").isLessThanOrEqualTo(MAX_KEYS + THREADS);
        assertThat(store.permitKeys()).as("keys holding permits or marks").isLessThanOrEqualTo(MAX_KEYS + THREADS);
        assertThat(server.post("limits/exports/one-more-made-up/permits", "").statusCode())
                .as("a new key's permit while the store is full").isEqualTo(503);
        assertThat(grantedOf("remote", "real-client", 4)).as("the real key's last 2 of 5, after").isEqualTo(2);
        assertThat(server.post("limits/remote/a-new-client/acquire?maxWaitMs=0", "").statusCode())
                .as("a new key while the store is full").isEqualTo(503);
    }

    /** The requests made-up key {@code i} sends: a slot, a permit never released, or a reservation and its settle. */
    private List<HttpResponse<String>> madeUp(int i) throws Exception {
        String key = "made-up-" + i;
        switch (i % 3) {
            case 0:
                return List.of(server.post("limits/remote/" + key + "/acquire?maxWaitMs=0", ""));
            case 1:
                return List.of(server.post("limits/exports/" + key + "/permits?leaseMs=3600000", ""));
            default:
                HttpResponse<String> reserved = server.post("limits/llm/" + key + "/reservations?estimate=100", "");
                if (reserved.statusCode() != 200) {
                    return List.of(reserved);
                }
                String token = JSON.readTree(reserved.body()).get("reservation").asText();
                // At least the estimate: every counter lives hours, so the store stays full to the end.
                return List.of(reserved, server.request("PUT", "limits/llm/" + key + "/reservations?cost="
                        + (100 + i % 200), "", "Sluice-Reservation", token));
        }
    }

    /** How many of {@code attempts} slots of {@code id} the key {@code key} is granted now. */
    private int grantedOf(String id, String key, int attempts) throws Exception {
        int granted = 0;
        for (int i = 0; i < attempts; i++) {
            HttpResponse<String> answer = server.post("limits/" + id + "/" + key + "/acquire?maxWaitMs=0", "");
            JsonNode body = JSON.readTree(answer.body());
            if (answer.statusCode() == 200 && body.path("granted").asBoolean()) {
                granted++;
            }
        }
        return granted;
    }

    private static long heapAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
