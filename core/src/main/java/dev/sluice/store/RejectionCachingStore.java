package dev.sluice.store;

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

    /**
     * Answers a decision, a count or an estimate ({@link Command.Admission}) from a cached rejection (nothing to take
     * back), or on the remote store, remembering its rejection; every other command goes to the remote store, its
     * answer not cached. Neither can make a cached rejection wrong: a record or a reservation only adds to what was
     * counted, a concurrency rejection lasts until any holder releases (no retry-after says when, so none is cached),
     * and the next remote answer brings what a settle changed. A grant taken back, or a settle's difference given back,
     * can make a key freer than a rejection remembered before it said: until that rejection's retry-after, this store
     * may then refuse a request the remote store would grant (fewer pass, never more). A reset forgets the key's
     * cached rejections (under every policy; a scan of the cache, fine for an operator's call), before and after,
     * so that no rejection cached from before the reset outlives it.
     */
    @Override
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        if (command instanceof Command.Admission<R> admission) {
            return cachedOr(key, admission);
        }
        if (command instanceof Command.Reset) {
            forget(key);
            return remote.executeAsync(key, command).whenComplete((done, error) -> forget(key));
        }
        return remote.executeAsync(key, command);
    }

    /** As {@link #executeAsync}, waiting: an admission's remote answer is waited for on the remote store's own path. */
    @Override
    public <R> R execute(String key, Command<R> command) {
        if (!(command instanceof Command.Admission<R> admission)) {
            return CounterStore.super.execute(key, command);
        }
        CacheKey cacheKey = new CacheKey(key, admission.policy());
        long sentAt = time.nanos();
        @Nullable R cached = cached(cacheKey, admission, sentAt);
        if (cached != null) {
            return cached;
        }
        R answer = remote.execute(key, admission);
        remember(cacheKey, admission, answer, sentAt);
        return answer;
    }

    /** A cached rejection of the admission, or the remote store's answer, its rejection remembered. */
    private <R> CompletionStage<R> cachedOr(String key, Command.Admission<R> admission) {
        CacheKey cacheKey = new CacheKey(key, admission.policy());
        long sentAt = time.nanos();
        @Nullable R cached = cached(cacheKey, admission, sentAt);
        if (cached != null) {
            return CompletableFuture.completedFuture(cached);
        }
        return remote.executeAsync(key, admission).thenApply(answer -> {
            remember(cacheKey, admission, answer, sentAt);
            return answer;
        });
    }

    /** The admission's answer from a cached rejection; null when none holds. */
    private <R> @Nullable R cached(CacheKey cacheKey, Command.Admission<R> admission, long now) {
        @Nullable Decision cached = cachedRejection(cacheKey, now, admission.cost(), admission.maxDelayNanos());
        return cached == null ? null : admission.kept(cached);
    }

    private <R> void remember(CacheKey cacheKey, Command.Admission<R> admission, R answer, long sentAt) {
        remember(cacheKey, admission.decisionOf(answer), sentAt, admission.cost(), admission.maxDelayNanos());
    }

    private void forget(String key) {
        rejections.keySet().removeIf(cached -> cached.key().equals(key));
    }

    @Override
    public StoreServices services() {
        return remote.services();
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
