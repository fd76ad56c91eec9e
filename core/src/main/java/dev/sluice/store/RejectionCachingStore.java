package dev.sluice.store;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Durations;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Remembers rejections of a remote {@link CounterStore} and repeats them locally until their retry-after has passed,
 * or their next permit when that comes sooner (the permits remaining they say grow then), sparing the remote call for
 * a key that is over its limit (a client hammering while throttled). This never changes an answer: other nodes can
 * only move a grant later. Peeks and rejections that can never succeed are not cached; at most {@code maxEntries}
 * rejections are kept. Thread-safe. Why, and what is not covered (members whose clocks disagree):
 * {@code docs/design/failure-handling.md}.
 */
public final class RejectionCachingStore implements CounterStore {

    /** The rejections the servlet filter keeps unless told otherwise: {@value}. */
    public static final int DEFAULT_MAX_ENTRIES = 100_000;

    private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;

    private final CounterStore remote;
    private final TimeSource time;
    private final int maxEntries;
    private final ConcurrentHashMap<CacheKey, Rejection> rejections = new ConcurrentHashMap<>();
    private final LongAdder hits = new LongAdder();
    /** When a full cache may next be swept for expired rejections: at most once a second, not on every rejection. */
    private final AtomicLong nextSweepAt = new AtomicLong(Long.MIN_VALUE);

    /**
     * Caches {@code remote}'s rejections on {@code time} (this node's clock; must run at the rate of the remote
     * store's), keeping at most {@code maxEntries}.
     */
    public RejectionCachingStore(CounterStore remote, TimeSource time, int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, got " + maxEntries);
        }
        this.remote = Objects.requireNonNull(remote, "remote");
        this.time = Objects.requireNonNull(time, "time");
        this.maxEntries = maxEntries;
    }

    /** Requests answered from the cache, without a remote call, since this store was built. */
    public long hits() {
        return hits.sum();
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        CacheKey cacheKey = new CacheKey(key, policy);
        long sentAt = time.nanos();
        @Nullable Decision cached = cachedRejection(cacheKey, sentAt, cost, maxDelayNanos);
        if (cached != null) {
            return cached;
        }
        Decision decision = remote.apply(key, policy, cost, maxDelayNanos);
        remember(cacheKey, decision, sentAt, cost, maxDelayNanos);
        return decision;
    }

    @Override
    public CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        CacheKey cacheKey = new CacheKey(key, policy);
        long sentAt = time.nanos();
        @Nullable Decision cached = cachedRejection(cacheKey, sentAt, cost, maxDelayNanos);
        if (cached != null) {
            return CompletableFuture.completedFuture(cached);
        }
        return remote.applyAsync(key, policy, cost, maxDelayNanos).thenApply(decision -> {
            remember(cacheKey, decision, sentAt, cost, maxDelayNanos);
            return decision;
        });
    }

    /**
     * Counts as {@link #applyAsync} decides: a cached rejection is repeated (nothing to take back), a remote one is
     * remembered. A grant taken back can make a key freer than a rejection remembered before it said: until that
     * rejection's retry-after, this store may then refuse a request the remote store would grant (fewer pass, never
     * more).
     */
    @Override
    public CompletionStage<Counted> countAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return cachedOr(key, policy, cost, maxDelayNanos, () -> remote.countAsync(key, policy, cost, maxDelayNanos));
    }

    /**
     * Counts an estimate as {@link #countAsync} counts a cost: a cached rejection is repeated, a remote one
     * remembered. A settle can make a key freer (a difference given back) or more restricted (a debt): the first is
     * fewer passing until a remembered rejection's retry-after, the second a rejection the next remote answer brings.
     */
    @Override
    public CompletionStage<Counted> estimateAsync(String key, Policy policy, long estimate, long maxDelayNanos) {
        return cachedOr(key, policy, estimate, maxDelayNanos,
                () -> remote.estimateAsync(key, policy, estimate, maxDelayNanos));
    }

    /** A cached rejection of {@code cost}, or {@code count} on the remote store, its rejection remembered. */
    private CompletionStage<Counted> cachedOr(String key, Policy policy, long cost, long maxDelayNanos,
                                              Supplier<CompletionStage<Counted>> count) {
        CacheKey cacheKey = new CacheKey(key, policy);
        long sentAt = time.nanos();
        @Nullable Decision cached = cachedRejection(cacheKey, sentAt, cost, maxDelayNanos);
        if (cached != null) {
            return CompletableFuture.completedFuture(Counted.kept(cached));
        }
        return count.get().thenApply(counted -> {
            remember(cacheKey, counted.decision(), sentAt, cost, maxDelayNanos);
            return counted;
        });
    }

    /** Settles on the remote store; the next remote answer brings what it changed. */
    @Override
    public CompletionStage<Decision> settleAsync(String key, Policy policy, long estimate, long actual,
                                                 String reservation) {
        return remote.settleAsync(key, policy, estimate, actual, reservation);
    }

    /**
     * Records on the remote store. A recorded request only adds to what was counted, so cached rejections stay true;
     * its answer is not cached.
     */
    @Override
    public Decision record(String key, Policy policy, long cost, long ageNanos) {
        return remote.record(key, policy, cost, ageNanos);
    }

    @Override
    public CompletionStage<Decision> recordAsync(String key, Policy policy, long cost, long ageNanos) {
        return remote.recordAsync(key, policy, cost, ageNanos);
    }

    /** Reserves on the remote store, never from the cache; a reservation only adds to what was counted. */
    @Override
    public Decision reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        return remote.reserve(key, policy, cost, maxWaitNanos);
    }

    @Override
    public CompletionStage<Decision> reserveAsync(String key, Policy policy, long cost, long maxWaitNanos) {
        return remote.reserveAsync(key, policy, cost, maxWaitNanos);
    }

    /**
     * Resets the key on the remote store and forgets its cached rejections (under every policy; a scan of the cache,
     * which is fine for an operator's call), before and after, so that no rejection cached from before the reset
     * outlives it.
     */
    @Override
    public void reset(String key) {
        rejections.keySet().removeIf(cached -> cached.key().equals(key));
        remote.reset(key);
        rejections.keySet().removeIf(cached -> cached.key().equals(key));
    }

    @Override
    public CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        return remote.peekAsync(key, policy, cost);
    }

    /**
     * Takes a permit on the remote store, never from the cache: a concurrency rejection lasts until any holder
     * releases, which no retry-after says, so caching one would refuse requests the remote store grants.
     */
    @Override
    public CompletionStage<Counted> acquireAsync(String key, ConcurrencyLimit limit) {
        return remote.acquireAsync(key, limit);
    }

    @Override
    public CompletionStage<Decision> releaseAsync(String key, ConcurrencyLimit limit, String permit) {
        return remote.releaseAsync(key, limit, permit);
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        return remote.peek(key, policy, cost);
    }

    /** The health of the store it wraps. */
    @Override
    public SharedEntries sharedEntries(String name) {
        return remote.sharedEntries(name);
    }

    @Override
    public StoreHealth health() {
        return remote.health();
    }

    /** The overrides of the store it wraps. */
    @Override
    public LimitOverrides overrides() {
        return remote.overrides();
    }

    /** Closes the remote store and forgets the cached rejections. */
    @Override
    public void close() {
        rejections.clear();
        remote.close();
    }

    private @Nullable Decision cachedRejection(CacheKey cacheKey, long now, long cost, long maxDelayNanos) {
        @Nullable Rejection rejection = rejections.get(cacheKey);
        if (rejection == null) {
            return null;
        }
        if (now >= rejection.until) {
            rejections.remove(cacheKey, rejection);
            return null;
        }
        if (cost < rejection.cost || maxDelayNanos > rejection.maxDelayNanos) {
            return null;
        }
        hits.increment();
        Decision original = rejection.decision;
        long elapsed = now - rejection.sentAt;
        long retryAfter = original.retryAfterNanos() - elapsed;
        long resetAfter = Math.max(retryAfter, original.resetAfterNanos() - elapsed);
        // Held only until then, so still ahead: the remaining the store said is still the remaining.
        long nextPermit = Math.max(0, original.nextPermitNanos() - elapsed);
        return Decision.rejected(original.limit(), original.limitName(), retryAfter).remaining(original.remaining())
                .nextPermitIn(nextPermit).resetIn(resetAfter).build();
    }

    private void remember(CacheKey cacheKey, Decision decision, long sentAt, long cost, long maxDelayNanos) {
        if (decision.allowed()) {
            rejections.remove(cacheKey);
            return;
        }
        if (!decision.canSucceed()) {
            return;
        }
        if (rejections.size() >= maxEntries) {
            long now = time.nanos();
            long sweepAt = nextSweepAt.get();
            if (now < sweepAt || !nextSweepAt.compareAndSet(sweepAt, now + SWEEP_INTERVAL_NANOS)) {
                return;
            }
            rejections.values().removeIf(rejection -> rejection.until <= now);
            if (rejections.size() >= maxEntries) {
                return;
            }
        }
        // Held until the permits remaining grow (a debt paid back while the request's own cost does not fit yet),
        // never past the retry: repeated later, it would say none remain, and none until now, when some do.
        long next = decision.nextPermitNanos();
        long until = Durations.saturatedAdd(sentAt, next > 0 ? Math.min(next, decision.retryAfterNanos())
                : decision.retryAfterNanos());
        rejections.put(cacheKey, new Rejection(decision, sentAt, until, cost, maxDelayNanos));
    }

    private record CacheKey(String key, Policy policy) {
    }

    private record Rejection(Decision decision, long sentAt, long until, long cost, long maxDelayNanos) {
    }
}
