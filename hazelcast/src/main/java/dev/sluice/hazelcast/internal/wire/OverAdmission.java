package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import java.io.IOException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How far one synchronised key has gone past its limits, kept by its owner beside its counters: per limit, the
 * highest excess (permits counted past the limit, {@link Policy#room} below zero) reached in the current span. The
 * hits a merge counts over-admit by the rise of the excess above that peak: a later merge that finds the key as far
 * past, or less, has not admitted more than the limit allows once more.
 *
 * <p>A window algorithm's span is the limit's aligned window: what a window holds past its permits is never paid back.
 * A bucket's or GCRA's span lasts until the key is back at full capacity: its debt is paid back by the refill that an
 * exact limiter would have granted to later requests, so a key kept at its limit counts its deepest debt once, and a
 * key that runs idle has over-admitted each debt it reached. Immutable. Design: {@code docs/design/synchronised.md}.
 */
final class OverAdmission {

    /** An entry that keeps its key's over-admission beside its counters: a key of a {@link Shard}. */
    interface Kept {
        OverAdmission overAdmission();

        /** Keeps {@code measured}, written with the entry's counters when they change. */
        void keep(OverAdmission measured);
    }

    /** A key the owner has measured nothing of. */
    static final OverAdmission NONE = new OverAdmission(new long[0], new long[0]);

    private final long[] spans;
    private final long[] peaks;

    private OverAdmission(long[] spans, long[] peaks) {
        this.spans = spans;
        this.peaks = peaks;
    }

    /** The over-admission of counting hits that took the counters from {@code before} to {@code after}. */
    record Measured(long permits, OverAdmission after) {
    }

    /** What counting hits that took the key's counters from {@code before} to {@code after} at {@code now} brought. */
    Measured measure(Policy policy, long @Nullable [][] before, long @Nullable [][] after, long now) {
        List<Limit> limits = policy.limits();
        long[] roomBefore = policy.room(before, now);
        long[] roomAfter = policy.room(after, now);
        boolean known = spans.length == limits.size();
        long[] nextSpans = new long[limits.size()];
        long[] nextPeaks = new long[limits.size()];
        long over = 0;
        for (int i = 0; i < limits.size(); i++) {
            Limit limit = limits.get(i);
            long span = known ? spans[i] : 0;
            long peak = known ? peaks[i] : 0;
            if (policy.algorithm().countsPastRequests()) {
                long window = Math.floorDiv(now, limit.periodNanos());
                peak = window == span ? peak : 0;
                span = window;
            } else if (roomBefore[i] >= limit.capacity()) {
                peak = 0;
                span++;
            }
            long excess = Math.max(0, -roomAfter[i]);
            over = Math.max(over, excess - peak);
            nextSpans[i] = span;
            nextPeaks[i] = Math.max(peak, excess);
        }
        return new Measured(over, new OverAdmission(nextSpans, nextPeaks));
    }

    /** Per limit the later span and the higher peak of two copies: the merge of a healed split brain. */
    static OverAdmission higher(OverAdmission a, OverAdmission b) {
        if (a.spans.length != b.spans.length) {
            return a.spans.length == 0 ? b : a;
        }
        long[] spans = new long[a.spans.length];
        long[] peaks = new long[a.spans.length];
        for (int i = 0; i < spans.length; i++) {
            spans[i] = Math.max(a.spans[i], b.spans[i]);
            peaks[i] = Math.max(a.peaks[i], b.peaks[i]);
        }
        return new OverAdmission(spans, peaks);
    }

    /** Wire layout: the limit count (int), then per limit its span and peak (longs). */
    void writeData(ObjectDataOutput out) throws IOException {
        out.writeInt(spans.length);
        for (int i = 0; i < spans.length; i++) {
            out.writeLong(spans[i]);
            out.writeLong(peaks[i]);
        }
    }

    static OverAdmission readData(ObjectDataInput in) throws IOException {
        int limits = in.readInt();
        if (limits < 0 || limits > Policy.MAX_LIMITS) {
            throw new IOException("read an over-admission of " + limits + " limits: 0 to " + Policy.MAX_LIMITS
                    + " fit");
        }
        long[] spans = new long[limits];
        long[] peaks = new long[limits];
        for (int i = 0; i < limits; i++) {
            spans[i] = in.readLong();
            peaks[i] = in.readLong();
        }
        return limits == 0 ? NONE : new OverAdmission(spans, peaks);
    }
}
