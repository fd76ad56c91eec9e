package dev.sluice;

import java.util.concurrent.TimeUnit;

/**
 * A source of time in nanoseconds, and a way to wait for it to pass.
 *
 * <p>Every decision Sluice makes is a function of "now": algorithms never read a clock themselves, they are
 * handed the value of a {@code TimeSource}. Production code uses {@link #system()}; tests use
 * {@link ManualTimeSource} and move time by hand, so no test depends on the machine's speed.
 *
 * <p>Values from one source must share one origin with every other source that touches the same counters (the
 * system source counts from the Unix epoch, so separate JVMs agree to within their clock skew). Implementations
 * must be thread-safe.
 */
@FunctionalInterface
public interface TimeSource {

    /** The current time in nanoseconds since this source's origin (the Unix epoch for {@link #system()}). */
    long nanos();

    /**
     * Waits for {@code nanos} nanoseconds of this source's time to pass. The system source sleeps; a manual source
     * moves its own time forward instead.
     *
     * @throws InterruptedException if the waiting thread is interrupted
     */
    default void sleep(long nanos) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(nanos);
    }

    /**
     * The machine's clock: nanoseconds since the Unix epoch, read from the wall clock once and then advanced by the
     * monotonic {@link System#nanoTime()}, so it never runs backwards within one JVM.
     */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }
}
