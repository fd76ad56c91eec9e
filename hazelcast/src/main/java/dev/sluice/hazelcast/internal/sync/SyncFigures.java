package dev.sluice.hazelcast.internal.sync;

import dev.sluice.TimeSource;
import dev.sluice.metrics.DecisionMetrics;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one node's synchronised keys count: decisions made here and on the owners, calls sent and failed, the longest
 * round trip, the over-admission the owners found per scope, and how many nodes the owners see (which sets the
 * automatic budgets). Logs failing calls, without keys: when a run of failures starts, then at most once a minute
 * while it lasts, and once when it ends. Thread-safe.
 */
final class SyncFigures {

    private static final System.Logger LOG = System.getLogger(SyncFigures.class.getName());
    private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final TimeSource time;
    final LongAdder localDecisions = new LongAdder();
    final LongAdder ownerDecisions = new LongAdder();
    final LongAdder callsSent = new LongAdder();
    private final LongAdder callsFailed = new LongAdder();
    private final ConcurrentHashMap<String, LongAdder> overAdmitted = new ConcurrentHashMap<>();
    private final AtomicLong longestRoundTrip = new AtomicLong();
    private volatile int nodesSeen;
    private final AtomicBoolean failing = new AtomicBoolean();
    private final AtomicLong failureSaidAt = new AtomicLong();

    SyncFigures(TimeSource time) {
        this.time = time;
    }

    /** A call answered after {@code roundTripNanos}, by an owner that sees {@code nodes} members and clients. */
    void answered(long roundTripNanos, int nodes) {
        longestRoundTrip.accumulateAndGet(roundTripNanos, Math::max);
        nodesSeen = Math.max(1, nodes);
        if (failing.get() && failing.compareAndSet(true, false)) {
            LOG.log(System.Logger.Level.INFO, "Sluice: synchronising keys with their owners works again ("
                    + callsFailed() + " calls failed since the start)");
        }
    }

    /** A call failed after {@code roundTripNanos}: counted, and logged as the class comment says. */
    void failed(long roundTripNanos, Throwable cause) {
        longestRoundTrip.accumulateAndGet(roundTripNanos, Math::max);
        callsFailed.increment();
        long now = time.nanos();
        long said = failureSaidAt.get();
        boolean starts = failing.compareAndSet(false, true);
        if (starts || now - said >= LOG_EVERY_NANOS && failureSaidAt.compareAndSet(said, now)) {
            failureSaidAt.set(now);
            LOG.log(System.Logger.Level.WARNING, "Sluice: synchronising keys with their owners failed ("
                    + callsFailed() + " calls failed since the start); the hits wait and are sent again, and the"
                    + " requests past their budget are decided by the failure policy. Cause: " + cause);
        }
    }

    /** The owner found {@code permits} of this node's hits of {@code key} over the key's limit. */
    void overAdmitted(String key, long permits) {
        overAdmitted.computeIfAbsent(scope(key), made -> new LongAdder()).add(permits);
    }

    /**
     * The part of a counter key before its first {@code |}, what a rule set's key says of its rule (never of a
     * client); {@code (other)} for a key without one.
     */
    static String scope(String key) {
        int bar = key.indexOf('|');
        return bar < 0 ? DecisionMetrics.NOT_A_RULE : key.substring(0, bar);
    }

    long callsFailed() {
        return callsFailed.sum();
    }

    long longestRoundTripNanos() {
        return longestRoundTrip.get();
    }

    /** The nodes the last owner to answer saw (members and its connected clients); 0 before any answer. */
    int nodesSeen() {
        return nodesSeen;
    }

    Map<String, Long> overAdmitted() {
        Map<String, Long> sums = new TreeMap<>();
        overAdmitted.forEach((scope, permits) -> sums.put(scope, permits.sum()));
        return sums;
    }
}
