package dev.sluice.benchmarks;

import com.google.common.util.concurrent.RateLimiter;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import dev.sluice.store.LocalCounterStore;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The same work for Sluice's local token bucket and the local limiters users would pick instead: per request, find
 * the key's limiter in a concurrent map (created on first use) and try to take one permit of 1,000 per second.
 * Bucket4j's lock-free bucket, Guava's {@code RateLimiter} (smooth bursty, a lock per limiter) and Resilience4j's
 * {@code AtomicRateLimiter} (CAS over refresh cycles).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class TokenBucketPeersBenchmark {

    private static final int PERMITS_PER_SECOND = 1_000;

    @Param({"1", "10000"})
    public int keyCount;

    private String[] keys;
    private LocalCounterStore sluice;
    private Policy policy;
    private final ConcurrentHashMap<String, Bucket> bucket4j = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, RateLimiter> guava = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicRateLimiter> resilience4j = new ConcurrentHashMap<>();
    private RateLimiterConfig resilience4jConfig;

    @Setup
    public void setUp() {
        keys = Keys.named(keyCount);
        sluice = new LocalCounterStore();
        policy = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(PERMITS_PER_SECOND, Duration.ofSeconds(1)));
        resilience4jConfig = RateLimiterConfig.custom()
                .limitForPeriod(PERMITS_PER_SECOND)
                .limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(Duration.ZERO)
                .build();
    }

    @Benchmark
    public boolean sluice(Keys.Cursor cursor) {
        return sluice.execute(keys[cursor.next(keys.length)], Command.decide(policy, 1, Long.MAX_VALUE)).allowed();
    }

    @Benchmark
    public boolean bucket4j(Keys.Cursor cursor) {
        return bucket(keys[cursor.next(keys.length)]).tryConsume(1);
    }

    private Bucket bucket(String key) {
        return bucket4j.computeIfAbsent(key, newKey -> Bucket.builder()
                .addLimit(Bandwidth.builder().capacity(PERMITS_PER_SECOND)
                        .refillGreedy(PERMITS_PER_SECOND, Duration.ofSeconds(1)).build())
                .build());
    }

    /**
     * Bucket4j asked for what a Sluice decision carries (remaining permits and the wait for the next), rather than
     * a bare yes or no.
     */
    @Benchmark
    public boolean bucket4jWithProbe(Keys.Cursor cursor) {
        return bucket(keys[cursor.next(keys.length)]).tryConsumeAndReturnRemaining(1).isConsumed();
    }

    @Benchmark
    public boolean guava(Keys.Cursor cursor) {
        return guava.computeIfAbsent(keys[cursor.next(keys.length)], key -> RateLimiter.create(PERMITS_PER_SECOND))
                .tryAcquire();
    }

    @Benchmark
    public boolean resilience4j(Keys.Cursor cursor) {
        return resilience4j.computeIfAbsent(keys[cursor.next(keys.length)],
                key -> new AtomicRateLimiter(key, resilience4jConfig)).acquirePermission();
    }
}
