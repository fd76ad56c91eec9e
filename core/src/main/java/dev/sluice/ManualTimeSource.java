package dev.sluice;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link TimeSource} that only moves when told to: for tests, and for simulations that replay a trace.
 *
 * <p>{@link #sleep(long)} advances this source instead of blocking, so code that waits for a permit runs instantly
 * in tests while still seeing the time it waited for. Time may also be {@link #set set} backwards, to test what
 * happens when a clock jumps. Thread-safe.
 */
public final class ManualTimeSource implements TimeSource {

    private final AtomicLong nanos;

    /** Starts at {@code startNanos}. */
    public ManualTimeSource(long startNanos) {
        this.nanos = new AtomicLong(startNanos);
    }

    /** Starts at a fixed, realistic instant (2026-01-01T00:00:00Z), so window boundaries are not all at zero. */
    public ManualTimeSource() {
        this(1_767_225_600_000_000_000L);
    }

    @Override
    public long nanos() {
        return nanos.get();
    }

    /** Moves time forward (or backward, for a negative duration) and returns the new time. */
    public long advance(Duration duration) {
        return advanceNanos(duration.toNanos());
    }

    /** Moves time by {@code deltaNanos} and returns the new time. */
    public long advanceNanos(long deltaNanos) {
        return nanos.addAndGet(deltaNanos);
    }

    /** Sets the time, forward or backward. */
    public void set(long newNanos) {
        nanos.set(newNanos);
    }

    /** Advances time by {@code nanos} without blocking. */
    @Override
    public void sleep(long nanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        advanceNanos(nanos);
    }
}
