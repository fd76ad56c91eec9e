package dev.sluice.store;

import dev.sluice.Decision;
import dev.sluice.TimeSource;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
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
 * counted in its {@linkplain #services() health}; a decision the allow or reject rule made is marked
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
        /** Decide on a local store (the fallback), which then counts this node's requests on its own. */
        LOCAL;

        /** The name adapters' settings give this rule by: {@code allow}, {@code reject}, or {@code local}. */
        public String settingName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final CounterStore remote;
    private final long timeoutNanos;
    private final OnFailure onFailure;
    /** Asked when the remote store fails, under {@link OnFailure#LOCAL} only. */
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
    /** Made once: rule sets ask for the overrides on every request. */
    private final StoreServices services;

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
        this.services = remote.services().withHealth(health -> {
            long now = log.now();
            return health.withFailures(new StoreHealth.Failures(recentFailures.lastMinute(now),
                    recentTimeouts.lastMinute(now), recentShed.lastMinute(now)));
        });
    }

    /** What the failure rule does to the requests it decides, for the log. */
    private static String consequence(OnFailure rule) {
        return switch (rule) {
            case ALLOW -> "the failure policy 'allow' lets those requests through unlimited";
            case REJECT -> "the failure policy 'reject' refuses those requests";
            case LOCAL -> "the failure policy 'local' counts those requests on this instance alone";
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
     * @param time the clock that spaces the lines and ages the {@linkplain #services() health}'s last minute counts
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
     * The remote store's services, its health (what it is, the members it sees) with this store's counts of the last
     * minute: calls failed, timed out and shed, each decided by the failure rule.
     */
    @Override
    public StoreServices services() {
        return services;
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
        return new FailurePolicyStore(remote, timeout, OnFailure.LOCAL, fallback);
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

    /**
     * Executes {@code command} on the remote store within the timeout; when the store fails, is late or too many calls
     * are in flight, the failure rule answers ({@link Command#withoutStore}, or the fallback store's answer, the ids of
     * its permits and reservations prefixed {@code fallback:}), and a command only the store can do (settle or release
     * by id) completes exceptionally saying what stays as it was: a caller may try again. A grant's give-back, release
     * and settle are bounded by the timeout too: when they fail or are late, the failure is logged and counted like
     * any other, and the count stays (fewer pass, never more; a permit returns at its maximum hold, an estimate stays
     * counted). A remote permit granted after the timeout is released as it comes: no one holds it, and it would keep
     * one of the key's permits until its maximum hold. A command on a fallback id goes to the fallback store. A reset,
     * an operator's call, waits as long as the remote store takes, then resets the fallback store too, which may hold
     * what it counted while the remote store failed; a remote failure is the reset's.
     */
    @Override
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        if (command instanceof Command.Reset) {
            CompletionStage<R> reset = remote.executeAsync(key, command);
            return fallback == null ? reset : reset.whenComplete((done, error) -> fallback.execute(key, command));
        }
        if (command instanceof Command.ById<R> byId && isFallbackId(byId.id())) {
            return fallback().executeAsync(key, byId.withId(byId.id().substring(FALLBACK_ID.length())));
        }
        @Nullable CompletableFuture<R> answer = startRemote(key, () -> remote.executeAsync(key, command));
        if (answer == null) {
            return ruledAsync(key, command);
        }
        return answer.copy().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).handle((value, error) -> {
            if (error == null) {
                log.answered();
                return guarded(key, value);
            }
            failedCommand(key, command, answer, unwrap(error));
            return ruled(key, command);
        });
    }

    /**
     * As {@link #executeAsync}, waiting: the remote answer is waited for on this thread, bounded by the timeout, with
     * no timer scheduled and no stage chained per call (the filter's path for a request one rule counts).
     */
    @Override
    public <R> R execute(String key, Command<R> command) {
        if (command instanceof Command.Reset || command instanceof Command.ById) {
            return CounterStore.super.execute(key, command);
        }
        @Nullable CompletableFuture<R> answer = startRemote(key, () -> remote.executeAsync(key, command));
        if (answer == null) {
            return ruled(key, command);
        }
        try {
            R value = answer.get(timeoutNanos, TimeUnit.NANOSECONDS);
            log.answered();
            return guarded(key, value);
        } catch (TimeoutException e) {
            failedCommand(key, command, answer, e);
        } catch (ExecutionException e) {
            failedCommand(key, command, answer, e.getCause() != null ? e.getCause() : e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failedCommand(key, command, answer, e);
        }
        return ruled(key, command);
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

    /**
     * What the failure rule answers for {@code command} (see {@link #executeAsync}), decided on this thread: the
     * fallback store is this node's own.
     *
     * @throws IllegalStateException for a command only the store can do, saying what stays as it was
     */
    @SuppressWarnings("unchecked") // a count's answer with its ids renamed is of the count's own type
    private <R> R ruled(String key, Command<R> command) {
        Optional<R> ruled = command.withoutStore(onFailure == OnFailure.ALLOW);
        if (ruled.isEmpty()) {
            String lost = command instanceof Command.ById<?> byId ? byId.whenLost() : "answer";
            throw new IllegalStateException("Sluice: the store did not " + lost);
        }
        if (onFailure != OnFailure.LOCAL) {
            return ruled.get();
        }
        R answer = fallback().execute(key, command);
        return answer instanceof Counted counted ? (R) counted.withIds(id -> FALLBACK_ID + id) : answer;
    }

    /** {@link #ruled}, as a stage. */
    private <R> CompletionStage<R> ruledAsync(String key, Command<R> command) {
        try {
            return CompletableFuture.completedFuture(ruled(key, command));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The remote store's {@code answer}, a grant's give-back and settle bounded by the timeout. */
    @SuppressWarnings("unchecked") // a guarded count is of the count's own type
    private <R> R guarded(String key, R answer) {
        if (!(answer instanceof Counted counted)) {
            return answer;
        }
        return (R) counted.guarded(call -> {
            CompletableFuture<Decision> later = call.toCompletableFuture();
            return later.copy().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).handle((value, error) -> {
                if (error == null) {
                    log.answered();
                    return value;
                }
                failedCall(key, later, unwrap(error));
                return counted.decision();
            });
        });
    }

    /**
     * Whether {@code id}, a permit's or a reservation's as {@link Counted#permit()} and {@link Counted#reservation()}
     * answer them, is one of a fallback store's: taken while the remote store failed, held only in this instance.
     */
    public static boolean isFallbackId(String id) {
        return id.startsWith(FALLBACK_ID);
    }

    /** {@link #failedCall}, and a permit the remote store grants after all released as it comes: no one holds it. */
    private void failedCommand(String key, Command<?> command, CompletableFuture<?> answer, Throwable cause) {
        failedCall(key, answer, cause);
        if (command instanceof Command.Acquire) {
            answer.thenAccept(late -> ((Counted) late).giveBack());
        }
    }

    /** Records a remote call that failed or timed out, cancelling {@code answer} when it timed out. */
    private void failedCall(String key, CompletableFuture<?> answer, Throwable cause) {
        boolean timedOut = cause instanceof TimeoutException;
        if (timedOut) {
            answer.cancel(false);
        }
        failed(key, timedOut, timedOut ? null : cause);
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

    /** The fallback store, which only the {@link OnFailure#LOCAL} rule asks, and which that rule always has. */
    private CounterStore fallback() {
        return Objects.requireNonNull(fallback, "the LOCAL rule is built with a fallback store");
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null
                ? error.getCause() : error;
    }
}
