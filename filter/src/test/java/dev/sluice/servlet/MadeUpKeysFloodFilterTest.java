package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.TimeSource;
import dev.sluice.store.LocalCounterStore;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
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
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flood of made-up header keys at the servlet filter (issue 38, Measure), over real HTTP on Jetty 12, bounded in
 * requests ({@code -Dsluice.flood.requests}, default 3,000) and seconds ({@code -Dsluice.flood.seconds}, default 120),
 * on a local store of at most 500 keys ({@code -Dsluice.flood.max-keys}) and the system clock: a rule keyed by
 * {@code X-Api-Key} with a rate limit, a concurrency limit and a limit in tokens, each request another key. Every
 * answer is a 200, 429 or 503 (a key past the bound refused as the limiter being unavailable); the store never holds
 * more keys than its bound (and the threads racing at it); no permit is left held; a real key that was counted before
 * is still counted exactly (its counter never forgotten to make room), and a new key is refused, never let through. The
 * heap after a full GC is printed; RELIABILITY.md holds it for a longer run.
 */
class MadeUpKeysFloodFilterTest {

    private static final int REQUESTS = Integer.getInteger("sluice.flood.requests", 3_000);
    private static final long SECONDS = Long.getLong("sluice.flood.seconds", 120);
    private static final long MAX_KEYS = Long.getLong("sluice.flood.max-keys", 500);
    private static final int THREADS = 4;
    private static final String RULES = """
            {"rules": [
              {"id": "per-key", "match": {"paths": ["/c/**"]}, "key": {"type": "header", "name": "X-Api-Key"},
               "limits": [{"permits": 5, "period": "1d"}], "concurrency": 2},
              {"id": "tokens", "match": {"paths": ["/c/**"]}, "key": {"type": "header", "name": "X-Api-Key"},
               "algorithm": "token_bucket", "limits": [{"permits": 1000, "period": "1d", "unit": "tokens"}],
               "estimate": {"type": "fixed", "value": 100}, "actual": {"type": "header", "name": "X-Tokens-Used"}}
            ]}""";

    @TempDir
    Path dir;

    @AutoClose
    private final JettyServers servers = new JettyServers();

    private final LocalCounterStore store = new LocalCounterStore(TimeSource.system(), MAX_KEYS);

    @Test
    void flood_madeUpHeaderKeys_staysWithinTheStoresBoundAndHoldsNoPermit() throws Exception {
        RateLimitFilter filter = RulesFileFilters.of(dir, RULES, settings -> settings.store(store));
        JettyServer server = servers.add(JettyServer.start(context -> new PathBehaviourServlet().mount(context,
                filter, true)));
        for (int i = 0; i < 3; i++) {
            assertThat(server.get("/c/ok?used=100", "X-Api-Key", "real-client").statusCode()).isEqualTo(200);
        }
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
                        // At least the estimate: every counter lives hours, so the store stays full to the end.
                        int status = server.get("/c/ok?used=" + (100 + i % 200), "X-Api-Key", "made-up-" + i)
                                .statusCode();
                        statuses.computeIfAbsent(status, any -> new LongAdder()).increment();
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

        System.out.printf("flood of %d made-up keys at the filter: answers %s, %d keys, %d permit keys, heap after GC"
                + " %.1f MB before, %.1f MB after%n", Math.min(next.get(), REQUESTS), statuses, store.size(),
                store.permitKeys(), heapBefore / 1e6, heapAfter / 1e6);
        assertThat(statuses.keySet()).as("answers").isSubsetOf(200, 429, 503);
        assertThat(statuses.get(503)).as("made-up keys refused once the store is full").isNotNull();
        assertThat(store.size()).as("counter keys").isLessThanOrEqualTo(MAX_KEYS + THREADS);
        PathBehaviourServlet.await(() -> store.permitKeys() == 0);
        List<Integer> real = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            real.add(server.get("/c/ok?used=100", "X-Api-Key", "real-client").statusCode());
        }
        assertThat(real).as("the real key's last 2 of 5, then refused").containsExactly(200, 200, 429, 429);
        assertThat(server.get("/c/ok?used=1", "X-Api-Key", "a-new-client").statusCode())
                .as("a new key while the store is full").isEqualTo(503);
    }

    private static long heapAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
