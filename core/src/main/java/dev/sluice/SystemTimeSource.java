package dev.sluice;

/** The wall clock anchored once, then advanced monotonically; see {@link TimeSource#system()}. */
enum SystemTimeSource implements TimeSource {
    INSTANCE;

    private final long originNanos = System.currentTimeMillis() * 1_000_000L - System.nanoTime();

    @Override
    public long nanos() {
        return originNanos + System.nanoTime();
    }
}
