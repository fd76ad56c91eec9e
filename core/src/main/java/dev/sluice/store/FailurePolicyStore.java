package dev.sluice.store;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Bounds how long a remote {@link CounterStore} may take to decide, and decides by a configured {@link OnFailure}
 * rule when it fails or takes longer: allow, reject, or ask a local fallback store. Usually built with
 * {@code CounterStores.of(store)}.
 *
 * <p>Each call waits at most the timeout (default {@link #DEFAULT_TIMEOUT}), then its remote future is cancelled; at
 * most {@link #withMaxPending maxPending} remote calls are in flight, beyond which the failure rule decides at once
 * ({@link #shed()}). Failures are logged without keys (the first at once, then at most one line per interval) and
 * counted in {@link #health()}; a decision the allow or reject rule made is marked
 * {@link Decision#storeUnavailable()}. Thread-safe. Design: {@code docs/design/failure-handling.md}.
 */
public final class FailurePolicyStore implements CounterStore {

    /** The default wait for the remote store: 100 ms. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(100);

    /** The default bound on remote calls in flight from one store: 1,000. */
    public static final int DEFAULT_MAX_PENDING = 1_000;

    /** How long a {@link OnFailure#REJECT rejection for failure} tells the caller to wait: one second. */
    public static final Duration REJECT_RETRY_AFTER = Duration.ofSeconds(1);

    /** How the ids of the fallback store's permits and reservations begin, apart from the remote store's. */
    private static final String FALLBACK_ID = "fallback:";

    /** What decides when the remote store fails or is too slow. */
    public enum OnFailure {
        /** Grant the request, reporting the policy's full capacity: availability over enforcement. */
        ALLOW,
        /** Reject the request, with a {@link #REJECT_RETRY_AFTER} retry-after: enforcement over availability. */
        REJECT,
        /** Decide on the fallback store, which then counts this node's requests on its own. */
        FALLBACK;

        /** The name adapters' settings give this rule by: {@code allow}, {@code reject}, or {@code local}. */
        public String settingName() {
            return this == FALLBACK ? "local" : name().toLowerCase(Locale.ROOT);
        }
    }

    private final CounterStore remote;
    private final long timeoutNanos;
    private final OnFailure onFailure;
    /** Asked when the remote store fails, under {@link OnFailure#FALLBACK} only. */
    private final @Nullable CounterStore fallback;
    private final FailureListener listener;
    private final int maxPending;
    private final AtomicInteger pending = new AtomicInteger();
    private final LongAdder failures = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder shed = new LongAdder();
    private final RecentCount recentFailures = new RecentCount();
    private final RecentCount recentTimeouts = new RecentCount();
    private final RecentCount recentShed = new RecentCount();
    private final FailureLog log;
    /** The causes of timeouts and shed calls, made once: a shed storm passes one on every call. */
    private final String timeoutCause;
    private final String shedCause;

    /**
     * Told of every call the remote store failed, did not answer in time, or was not asked because too many calls were
     * in flight ({@code timedOut} false), with the key; must not block.
     */
    @FunctionalInterface
    public interface FailureListener {
        void failed(String key, boolean timedOut);
    }

    private FailurePolicyStore(CounterStore remote, Duration timeout, OnFailure onFailure,
                               @Nullable CounterStore fallback) {
        this(remote, positive(timeout).toNanos(), onFailure, fallback, (key, timedOut) -> { }, DEFAULT_MAX_PENDING,
                FailureLog.Settings.DEFAULT);
    }

    private FailurePolicyStore(CounterStore remote, long timeoutNanos, OnFailure onFailure,
                               @Nullable CounterStore fallback, FailureListener listener, int maxPending,
                               FailureLog.Settings logSettings) {
        this.remote = Objects.requireNonNull(remote, "remote");
        this.timeoutNanos = timeoutNanos;
        this.onFailure = onFailure;
        this.fallback = fallback;
        this.listener = Objects.requireNonNull(listener, "listener");
        if (maxPending < 1) {
            throw new IllegalArgumentException("maxPending must be at least 1, got " + maxPending);
        }
        this.maxPending = maxPending;
        this.log = new FailureLog(logSettings, consequence(onFailure), this::totals);
        this.timeoutCause = "no answer within " + Duration.ofNanos(timeoutNanos).toMillis() + " ms";
        this.shedCause = "more than " + maxPending + " calls in flight";
    }

    /** What the failure rule does to the requests it decides, for the log. */
    private static String consequence(OnFailure rule) {
        return switch (rule) {
            case ALLOW -> "the failure policy 'allow' lets those requests through unlimited";
            case REJECT -> "the failure policy 'reject' refuses those requests";
            case FALLBACK -> "the failure policy 'local' counts those requests on this instance alone";
        };
    }

    private static Duration positive(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        return timeout;
    }

    /** This store, also telling {@code newListener} of every failure (for metrics); counters are not shared. */
    public FailurePolicyStore listeningTo(FailureListener newListener) {
        return new FailurePolicyStore(remote, timeoutNanos, onFailure, fallback, newListener, maxPending,
                log.settings());
    }

    /**
     * This store, with at most {@code max} remote calls in flight; counters are not shared.
     *
     * @throws IllegalArgumentException if {@code max} is below 1
     */
    public FailurePolicyStore withMaxPending(int max) {
        return new FailurePolicyStore(remote, timeoutNanos, onFailure, fallback, listener, max, log.settings());
    }

    /**
     * This store, logging failures to {@code logger} at {@code level}: the first at once, then at most one line per
     * {@code interval}; counters are not shared. The default is {@code WARNING} once a minute, to the logger named
     * after this class.
     *
     * @param time the clock that spaces the lines and ages the {@linkplain #health() last minute's} counts
     * @throws IllegalArgumentException if {@code interval} is not positive
     */
    public FailurePolicyStore withFailureLogging(System.Logger logger, System.Logger.Level level, Duration interval,
                                                 TimeSource time) {
        return new FailurePolicyStore(remote, timeoutNanos, onFailure, fallback, listener, maxPending,
                new FailureLog.Settings(logger, level, positive(interval).toNanos(), time));
    }

    private void failed(String key, boolean timedOut, @Nullable Throwable cause) {
        long now = log.now();
        (timedOut ? timeouts : failures).increment();
        (timedOut ? recentTimeouts : recentFailures).increment(now);
        log.failed(now, timedOut ? timeoutCause : FailureLog.describe(cause, key));
        listener.failed(key, timedOut);
    }

    private void shed(String key) {
        long now = log.now();
        shed.increment();
        recentShed.increment(now);
        log.failed(now, shedCause);
        listener.failed(key, false);
    }

    private FailureLog.Totals totals() {
        return new FailureLog.Totals(failures.sum(), timeouts.sum(), shed.sum());
    }

    /**
     * The remote store's health (what it is, the members it sees) with this store's counts of the last minute: calls
     * failed, timed out and shed, each decided by the failure rule.
     */
    @Override
    public SharedEntries sharedEntries(String name) {
        return remote.sharedEntries(name);
    }

    @Override
    public StoreHealth health() {
        long now = log.now();
        return remote.health().withFailures(recentFailures.lastMinute(now), recentTimeouts.lastMinute(now),
                recentShed.lastMinute(now));
    }

    /** The overrides of the store it wraps. */
    @Override
    public LimitOverrides overrides() {
        return remote.overrides();
    }

    /** Grants every request the remote store fails to decide within {@code timeout}. */
    public static FailurePolicyStore allowing(CounterStore remote, Duration timeout) {
        return new FailurePolicyStore(remote, timeout, OnFailure.ALLOW, null);
    }

    /** Rejects every request the remote store fails to decide within {@code timeout}. */
    public static FailurePolicyStore rejecting(CounterStore remote, Duration timeout) {
        return new FailurePolicyStore(remote, timeout, OnFailure.REJECT, null);
    }

    /**
     * Decides on {@code fallback} (typically a {@link LocalCounterStore}) every request the remote store fails to
     * decide within {@code timeout}.
     */
    public static FailurePolicyStore fallingBackTo(CounterStore remote, Duration timeout, CounterStore fallback) {
        Objects.requireNonNull(fallback, "fallback");
        return new FailurePolicyStore(remote, timeout, OnFailure.FALLBACK, fallback);
    }

    /** What decides a call the remote store fails or does not answer in time. */
    public OnFailure onFailure() {
        return onFailure;
    }

    /** How long a call waits for the remote store before {@link #onFailure()} decides it. */
    public Duration timeout() {
        return Duration.ofNanos(timeoutNanos);
    }

    /** Calls the remote store failed (threw or completed exceptionally), since this store was built. */
    public long failures() {
        return failures.sum();
    }

    /** Calls the remote store did not answer within the timeout, since this store was built. */
    public long timeouts() {
        return timeouts.sum();
    }

    /** Calls decided without the remote store because the most calls allowed were in flight. */
    public long shed() {
        return shed.sum();
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        @Nullable Decision decided = withinTimeout(key, () -> remote.applyAsync(key, policy, cost, maxDelayNanos));
        return decided != null ? decided : decideWithout(key, policy, cost, maxDelayNanos);
    }

    /** The remote store's answer within the timeout, or null once the failure is recorded. */
    private @Nullable Decision withinTimeout(String key, Supplier<CompletionStage<Decision>> call) {
        @Nullable CompletableFuture<Decision> answer = startRemote(key, call);
        if (answer == null) {
            return null;
        }
        try {
            Decision decided = answer.get(timeoutNanos, TimeUnit.NANOSECONDS);
            log.answered();
            return decided;
        } catch (TimeoutException e) {
            // A store that queues calls (the Hazelcast store's batches) then never sends this one.
            answer.cancel(false);
            failed(key, true, null);
        } catch (ExecutionException e) {
            failed(key, false, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failed(key, false, e);
        }
        return null;
    }

    /**
     * Starts the remote call unless {@link #maxPending} are in flight; null, with the failure recorded, when it was not
     * started or threw.
     */
    private <T> @Nullable CompletableFuture<T> startRemote(String key, Supplier<CompletionStage<T>> call) {
        if (pending.incrementAndGet() > maxPending) {
            pending.decrementAndGet();
            shed(key);
            return null;
        }
        try {
            CompletableFuture<T> answer = call.get().toCompletableFuture();
            // On the completing thread: a remote store's callback pool may be busy, and the slot must free at once.
            answer.whenCompleteAsync((decision, error) -> pending.decrementAndGet(), Runnable::run);
            return answer;
        } catch (RuntimeException e) {
            pending.decrementAndGet();
            failed(key, false, e);
            return null;
        }
    }

    @Override
    public CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return remoteOr(key, () -> remote.applyAsync(key, policy, cost, maxDelayNanos),
                () -> decideWithout(key, policy, cost, maxDelayNanos));
    }

    /**
     * The remote store's answer to {@code call} within the timeout, without blocking the caller; when it is not
     * started, fails or is late, {@code otherwise}.
     */
    private CompletionStage<Decision> remoteOr(String key, Supplier<CompletionStage<Decision>> call,
                                               Supplier<Decision> otherwise) {
        @Nullable CompletableFuture<Decision> answer = startRemote(key, call);
        if (answer == null) {
            return CompletableFuture.completedFuture(otherwise.get());
        }
        return bounded(key, answer, Function.identity(), otherwise);
    }

    /**
     * {@code answer} within the timeout, turned by {@code answered}; when it fails or is late, the failure recorded
     * (and a late call cancelled), {@code otherwise}.
     */
    private <T, R> CompletionStage<R> bounded(String key, CompletableFuture<T> answer, Function<T, R> answered,
                                              Supplier<R> otherwise) {
        return answer.copy().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).handle((value, error) -> {
            if (error == null) {
                log.answered();
                return answered.apply(value);
            }
            failedCall(key, answer, error);
            return otherwise.get();
        });
    }

    /**
     * Counts on the remote store within the timeout, as {@link #applyAsync} decides; on failure the failure rule
     * answers (the fallback store's count, or an answer that counted nothing). Taking a remote count back is bounded
     * by the timeout too: when it fails or is late, the failure is logged and counted like any other, and the count
     * stays (the key holds a request that did not pass: fewer pass, never more), answering the count's decision.
     */
    @Override
    public CompletionStage<Counted> countAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return guardedCount(key, () -> remote.countAsync(key, policy, cost, maxDelayNanos),
                () -> countWithout(key, policy, cost, maxDelayNanos, false));
    }

    /**
     * Counts an estimate on the remote store within the timeout, as {@link #countAsync} counts; on failure the failure
     * rule answers (the fallback store's reservation, its id prefixed {@code fallback:}, or an answer that counted
     * nothing, whose settle does nothing). Settling a remote reservation is bounded by the timeout too: when it fails
     * or is late, the failure is logged and counted like any other, and the estimate stays counted (an excess is not
     * charged).
     */
    @Override
    public CompletionStage<Counted> estimateAsync(String key, Policy policy, long estimate, long maxDelayNanos) {
        return guardedCount(key, () -> remote.estimateAsync(key, policy, estimate, maxDelayNanos),
                () -> countWithout(key, policy, estimate, maxDelayNanos, true));
    }

    /**
     * The remote store's count ({@code remote}) within the timeout, its give-back and settle bounded as it was (when
     * they fail, the count stays and its own decision answers); when it fails or is late, {@code without}.
     */
    private CompletionStage<Counted> guardedCount(String key, Supplier<CompletionStage<Counted>> remoteCount,
                                                  Supplier<CompletionStage<Counted>> without) {
        @Nullable CompletableFuture<Counted> answer = startRemote(key, remoteCount);
        if (answer == null) {
            return without.get();
        }
        Function<Counted, CompletionStage<Counted>> guarded = counted -> CompletableFuture.completedFuture(
                counted.guarded(call -> bounded(key, call.toCompletableFuture(), Function.identity(),
                        counted::decision)));
        return bounded(key, answer, guarded, without).thenCompose(Function.identity());
    }

    /**
     * Takes a permit on the remote store within the timeout, as {@link #countAsync} counts; on failure the failure
     * rule answers (the fallback store's permit, or an answer that holds nothing), and a remote permit granted after
     * the timeout is released as it comes: no one holds it, and it would otherwise keep one of the key's permits until
     * its maximum hold (a few late answers would spend the key for minutes). Releasing a remote permit is bounded by
     * the timeout too: when it fails or is late, the failure is logged and counted, and the permit returns when its
     * maximum hold ends (or with its node).
     */
    @Override
    public CompletionStage<Counted> acquireAsync(String key, ConcurrencyLimit limit) {
        @Nullable CompletableFuture<Counted> answer = startRemote(key, () -> remote.acquireAsync(key, limit));
        if (answer == null) {
            return acquireWithout(key, limit);
        }
        Function<Counted, CompletionStage<Counted>> guarded = held -> CompletableFuture.completedFuture(
                held.guarded(release -> bounded(key, release.toCompletableFuture(), Function.identity(),
                        held::decision)));
        return bounded(key, answer, guarded, () -> {
            answer.thenAccept(Counted::giveBack);
            return acquireWithout(key, limit);
        }).thenCompose(Function.identity());
    }

    /** What the failure rule holds: the fallback store's permit, or an answer that holds nothing. */
    private CompletionStage<Counted> acquireWithout(String key, ConcurrencyLimit limit) {
        long permits = limit.permits();
        return switch (onFailure) {
            case ALLOW -> CompletableFuture.completedFuture(Counted.kept(
                    Decision.granted(permits, limit.name()).remaining(permits - 1).storeUnavailable().build()));
            case REJECT -> CompletableFuture.completedFuture(Counted.kept(
                    Decision.rejected(permits, limit.name(), REJECT_RETRY_AFTER.toNanos())
                            .resetIn(REJECT_RETRY_AFTER.toNanos()).storeUnavailable().build()));
            case FALLBACK -> fallback().acquireAsync(key, limit)
                    .thenApply(held -> held.withIds(id -> FALLBACK_ID + id));
        };
    }

    /**
     * Releases a permit by its id: the fallback store's (ids {@code fallback:...}) there, the remote store's there
     * within the timeout. A remote release that fails or is late is logged and counted, and completes exceptionally
     * (the permit returns at its maximum hold, or with its node): a caller may try again.
     */
    @Override
    public CompletionStage<Decision> releaseAsync(String key, ConcurrencyLimit limit, String permit) {
        if (permit.startsWith(FALLBACK_ID)) {
            return fallback().releaseAsync(key, limit, permit.substring(FALLBACK_ID.length()));
        }
        return byIdOnRemote(key, () -> remote.releaseAsync(key, limit, permit), "release a concurrency permit in"
                + " time; it returns at its maximum hold");
    }

    /**
     * Whether {@code id}, a permit's or a reservation's as {@link Counted#permit()} and {@link Counted#reservation()}
     * answer them, is one of a fallback store's: taken while the remote store failed, held only in this instance.
     */
    public static boolean isFallbackId(String id) {
        return id.startsWith(FALLBACK_ID);
    }

    /**
     * Settles a reservation by its id: the fallback store's (ids {@code fallback:...}) there, the remote store's there
     * within the timeout. A remote settle that fails or is late is logged and counted, and completes exceptionally
     * (the estimate stays counted): a caller may try again.
     */
    @Override
    public CompletionStage<Decision> settleAsync(String key, Policy policy, long estimate, long actual,
                                                 String reservation) {
        if (reservation.startsWith(FALLBACK_ID)) {
            return fallback().settleAsync(key, policy, estimate, actual, reservation.substring(FALLBACK_ID.length()));
        }
        return byIdOnRemote(key, () -> remote.settleAsync(key, policy, estimate, actual, reservation), "settle a"
                + " reservation in time; its estimate stays counted");
    }

    /**
     * A call by id on the remote store ({@code call}) within the timeout; one that fails or is late is logged and
     * counted, and completes exceptionally saying the store did not {@code what}.
     */
    private CompletionStage<Decision> byIdOnRemote(String key, Supplier<CompletionStage<Decision>> call,
                                                   String what) {
        @Nullable CompletableFuture<Decision> answer = startRemote(key, call);
        Supplier<Decision> failed = () -> {
            throw new IllegalStateException("Sluice: the store did not " + what);
        };
        if (answer == null) {
            return CompletableFuture.supplyAsync(failed, Runnable::run);
        }
        return bounded(key, answer, Function.identity(), failed);
    }

    /** Records a remote call that failed or timed out, cancelling {@code answer} when it timed out. */
    private void failedCall(String key, CompletableFuture<?> answer, Throwable error) {
        Throwable cause = unwrap(error);
        boolean timedOut = cause instanceof TimeoutException;
        if (timedOut) {
            answer.cancel(false);
        }
        failed(key, timedOut, timedOut ? null : cause);
    }

    /**
     * What the failure rule counts: the fallback store's count (its reservation, for an {@code estimate}, with its id
     * prefixed), or an answer that counted nothing.
     */
    private CompletionStage<Counted> countWithout(String key, Policy policy, long cost, long maxDelayNanos,
                                                  boolean estimate) {
        return switch (onFailure) {
            case ALLOW -> CompletableFuture.completedFuture(Counted.kept(allowed(policy, cost)));
            case REJECT -> CompletableFuture.completedFuture(Counted.kept(rejected(policy, cost)));
            case FALLBACK -> estimate ? fallback().estimateAsync(key, policy, cost, maxDelayNanos)
                    .thenApply(reserved -> reserved.withIds(id -> FALLBACK_ID + id))
                    : fallback().countAsync(key, policy, cost, maxDelayNanos);
        };
    }

    /**
     * Records on the remote store within the timeout; on failure the failure rule answers (the fallback store records
     * it, under {@link OnFailure#FALLBACK}), as for a one-permit request. An {@link IllegalArgumentException} (an
     * algorithm that cannot count past requests) is the caller's, not the store's failure, and is thrown.
     */
    @Override
    public Decision record(String key, Policy policy, long cost, long ageNanos) {
        policy.algorithm().checkRecord(cost, ageNanos);
        @Nullable Decision decided = withinTimeout(key, () -> remote.recordAsync(key, policy, cost, ageNanos));
        return decided != null ? decided
                : byFailureRule(policy, 1, () -> fallback().record(key, policy, cost, ageNanos));
    }

    /** Records as {@link #record} does, without blocking the caller. */
    @Override
    public CompletionStage<Decision> recordAsync(String key, Policy policy, long cost, long ageNanos) {
        policy.algorithm().checkRecord(cost, ageNanos);
        return remoteOr(key, () -> remote.recordAsync(key, policy, cost, ageNanos),
                () -> byFailureRule(policy, 1, () -> fallback().record(key, policy, cost, ageNanos)));
    }

    /** Reserves on the remote store within the timeout; on failure the failure rule decides, as for {@link #apply}. */
    @Override
    public Decision reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        @Nullable Decision decided = withinTimeout(key, () -> remote.reserveAsync(key, policy, cost, maxWaitNanos));
        return decided != null ? decided
                : byFailureRule(policy, cost, () -> fallback().reserve(key, policy, cost, maxWaitNanos));
    }

    /** Reserves as {@link #reserve} does, without blocking the caller. */
    @Override
    public CompletionStage<Decision> reserveAsync(String key, Policy policy, long cost, long maxWaitNanos) {
        return remoteOr(key, () -> remote.reserveAsync(key, policy, cost, maxWaitNanos),
                () -> byFailureRule(policy, cost, () -> fallback().reserve(key, policy, cost, maxWaitNanos)));
    }

    /**
     * Resets the key on the remote store, waiting as long as it takes (an operator's call, not a request's), and on
     * the fallback store, which may hold what it counted while the remote store failed.
     *
     * @throws RuntimeException whatever the remote store throws: an operator must know that the reset failed
     */
    @Override
    public void reset(String key) {
        try {
            remote.reset(key);
        } finally {
            if (fallback != null) {
                fallback.reset(key);
            }
        }
    }

    /** Peeks at the remote store within the timeout; on failure reports what the failure rule would decide. */
    @Override
    public Decision peek(String key, Policy policy, long cost) {
        @Nullable Decision peeked = withinTimeout(key, () -> remote.peekAsync(key, policy, cost));
        if (peeked != null) {
            return peeked;
        }
        return byFailureRule(policy, cost, () -> fallback().peek(key, policy, cost));
    }

    /** Peeks as {@link #peek} does, without blocking the caller. */
    @Override
    public CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        return remoteOr(key, () -> remote.peekAsync(key, policy, cost),
                () -> byFailureRule(policy, cost, () -> fallback().peek(key, policy, cost)));
    }

    /** Closes the remote store and the fallback. */
    @Override
    public void close() {
        try {
            remote.close();
        } finally {
            if (fallback != null) {
                fallback.close();
            }
        }
    }

    private Decision decideWithout(String key, Policy policy, long cost, long maxDelayNanos) {
        return byFailureRule(policy, cost, () -> fallback().apply(key, policy, cost, maxDelayNanos));
    }

    /** The fallback store, which only the {@link OnFailure#FALLBACK} rule asks, and which that rule always has. */
    private CounterStore fallback() {
        return Objects.requireNonNull(fallback, "the FALLBACK rule is built with a fallback store");
    }

    /** What the failure rule decides; {@code onFallback} asks the fallback store. */
    private Decision byFailureRule(Policy policy, long cost, Supplier<Decision> onFallback) {
        return switch (onFailure) {
            case ALLOW -> allowed(policy, cost);
            case REJECT -> rejected(policy, cost);
            case FALLBACK -> onFallback.get();
        };
    }

    private static Decision allowed(Policy policy, long cost) {
        long capacity = policy.capacity();
        return Decision.granted(capacity, policy.limits().get(0).name()).remaining(Math.max(0, capacity - cost))
                .storeUnavailable().build();
    }

    private static Decision rejected(Policy policy, long cost) {
        long capacity = policy.capacity();
        long retryAfter = cost > capacity ? Decision.NEVER : REJECT_RETRY_AFTER.toNanos();
        return Decision.rejected(capacity, policy.limits().get(0).name(), retryAfter)
                .resetIn(REJECT_RETRY_AFTER.toNanos()).storeUnavailable().build();
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null
                ? error.getCause() : error;
    }
}
