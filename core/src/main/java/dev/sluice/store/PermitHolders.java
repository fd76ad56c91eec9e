package dev.sluice.store;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.internal.Durations;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One key's concurrency permits: permit id to the instant its maximum hold ends, in the order taken. Holds may
 * differ (a lease shorter than the limit's), so ended ones are found by a scan, run only once
 * {@link PermitEnds#earliestEnd()} (a lower bound of the earliest end, exact after a scan) has passed. Changed only
 * inside the map's {@code compute} for the key; {@link #count} is also read outside, for the local store's
 * {@code permitsHeld()}.
 */
final class PermitHolders {
    private final PermitEnds endsAt = new PermitEnds();
    volatile int count;

    /** A permit being taken, and the decision on it. Used by one thread. */
    static final class Taking {
        final long permit;
        final long now;
        final ConcurrencyLimit limit;
        @Nullable Decision decision;

        Taking(long permit, long now, ConcurrencyLimit limit) {
            this.permit = permit;
            this.now = now;
            this.limit = limit;
        }

        Decision decision() {
            return Objects.requireNonNull(decision, "decided inside compute");
        }
    }

    /** Takes the permit if one is free, recording the decision; this, or null (no key) when nothing is held. */
    @Nullable PermitHolders take(Taking taking) {
        long now = taking.now;
        dropExpired(now);
        long limit = taking.limit.permits();
        String name = taking.limit.name();
        if (endsAt.size() < limit) {
            endsAt.put(taking.permit, Durations.saturatedAdd(now, taking.limit.maxHoldNanos()));
            count = endsAt.size();
            long remaining = limit - endsAt.size();
            if (remaining == 0) {
                scan(now);
            }
            taking.decision = Decision.granted(limit, name).remaining(remaining)
                    .nextPermitIn(remaining == 0 ? endsAt.earliestEnd() - now : 0).resetIn(endsAt.latestEnd() - now)
                    .build();
            return this;
        }
        scan(now);
        long firstEnd = Math.max(1, endsAt.earliestEnd() - now);
        taking.decision = Decision.rejected(limit, name, firstEnd).nextPermitIn(firstEnd)
                .resetIn(Math.max(firstEnd, endsAt.latestEnd() - now)).build();
        return this;
    }

    /** Releases the permit (nothing when it is not held); this, or null when nothing is held any more. */
    @Nullable PermitHolders release(long permit) {
        endsAt.remove(permit);
        count = endsAt.size();
        return endsAt.size() == 0 ? null : this;
    }

    /** Drops the permits whose maximum hold has ended; this, or null when nothing is held any more. */
    @Nullable PermitHolders dropExpired(long now) {
        if (endsAt.earliestEnd() <= now) {
            scan(now);
        }
        return endsAt.size() == 0 ? null : this;
    }

    /** Drops the permits ended by {@code now}, and makes the earliest and latest end exact. */
    private void scan(long now) {
        endsAt.dropEndedBy(now);
        count = endsAt.size();
    }
}
