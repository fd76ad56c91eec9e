package dev.sluice.store;

import dev.sluice.TimeSource;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The log of a {@link FailurePolicyStore}: loud enough that a failing store is never missed, quiet enough that a
 * failing store under load does not flood the log.
 *
 * <p>The first failure of a run of failures is logged at once, with its cause and what the failure rule does now.
 * Every later line waits for the interval since the last one: a summary of the counts since then and the latest
 * cause while failures go on, or, at the first answer after the interval, a line saying the store answers again with
 * the counts it missed. So a store flapping between failing and answering writes at most two lines per interval.
 * Lines never name a key. Thread-safe.
 */
final class FailureLog {

    /** Where, at what level and how often the lines go. */
    record Settings(System.Logger logger, System.Logger.Level level, long intervalNanos, TimeSource time) {
        static final Settings DEFAULT = new Settings(System.getLogger(FailurePolicyStore.class.getName()),
                System.Logger.Level.WARNING, Duration.ofMinutes(1).toNanos(), TimeSource.system());

        Settings {
            Objects.requireNonNull(logger, "logger");
            Objects.requireNonNull(level, "level");
            Objects.requireNonNull(time, "time");
        }
    }

    /** The store's failure counts since it was built. */
    record Totals(long failed, long timedOut, long shed) {
        Totals since(Totals earlier) {
            return new Totals(failed - earlier.failed, timedOut - earlier.timedOut, shed - earlier.shed);
        }

        @Override
        public String toString() {
            return failed + " failed, " + timedOut + " timed out, " + shed + " shed";
        }
    }

    private static final long NOT_CLAIMED = Long.MIN_VALUE;

    private final Settings settings;
    private final String consequence;
    private final Supplier<Totals> totals;
    private final AtomicBoolean failing = new AtomicBoolean();
    private final AtomicLong lastLineNanos = new AtomicLong();
    private volatile Totals atLastLine = new Totals(0, 0, 0);
    private volatile String latestCause = "";

    FailureLog(Settings settings, String consequence, Supplier<Totals> totals) {
        this.settings = settings;
        this.consequence = consequence;
        this.totals = totals;
    }

    Settings settings() {
        return settings;
    }

    long now() {
        return settings.time().nanos();
    }

    /** A call the store did not decide, for {@code cause} (which names no key). */
    void failed(long now, String cause) {
        latestCause = cause;
        if (!failing.get()) {
            // Set before the run starts, so that no thread that sees it started finds an old line time.
            lastLineNanos.set(now);
            atLastLine = totals.get();
        }
        if (!failing.get() && failing.compareAndSet(false, true)) {
            settings.logger().log(settings.level(), "Sluice's counter store did not decide a request (" + cause
                    + "); " + consequence + " until it answers again. Further failures are summed up at most every "
                    + seconds(settings.intervalNanos()) + " s.");
            return;
        }
        long previous = claimLine(now);
        if (previous != NOT_CLAIMED) {
            settings.logger().log(settings.level(), "Sluice's counter store is failing: " + sinceLastLine()
                    + " calls in the last " + seconds(now - previous) + " s; " + consequence + ". Latest cause: "
                    + latestCause + ".");
        }
    }

    /** A call the store decided: ends a run of failures, in a line once the interval has passed. */
    void answered() {
        if (!failing.get()) {
            return;
        }
        long now = now();
        if (claimLine(now) != NOT_CLAIMED && failing.compareAndSet(true, false)) {
            settings.logger().log(System.Logger.Level.INFO, "Sluice's counter store answers again ("
                    + sinceLastLine() + " calls since the last line).");
        }
    }

    /**
     * Claims the right to write a line at {@code now} when the interval since the last line has passed: the time of
     * that last line, or {@link #NOT_CLAIMED}.
     */
    private long claimLine(long now) {
        long last = lastLineNanos.get();
        if (now - last < settings.intervalNanos() || !lastLineNanos.compareAndSet(last, now)) {
            return NOT_CLAIMED;
        }
        return last;
    }

    private Totals sinceLastLine() {
        Totals current = totals.get();
        Totals since = current.since(atLastLine);
        atLastLine = current;
        return since;
    }

    /**
     * A failure's cause for the log: its type and message, with the key replaced wherever the message repeats it
     * (store exceptions may quote the key they failed on).
     */
    static String describe(@Nullable Throwable cause, String key) {
        if (cause == null) {
            return "no cause given";
        }
        String message = cause.getMessage();
        String type = cause.getClass().getName();
        if (message == null || message.isBlank()) {
            return type;
        }
        return type + ": " + (key.isEmpty() ? message : message.replace(key, "<key>"));
    }

    private static long seconds(long nanos) {
        return Duration.ofNanos(nanos).toSeconds();
    }
}
