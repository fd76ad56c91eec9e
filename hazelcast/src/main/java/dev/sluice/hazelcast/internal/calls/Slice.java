package dev.sluice.hazelcast.internal.calls;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.SliceResult;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/** A slice this node grants from ({@link Slices}): its permits left and the decisions granted from it. */
final class Slice {
    final Policy policy;
    final long permits;
    final AtomicLong left;
    /** On this node's clock: the time the call was sent plus the validity. */
    final long expiresAt;
    final long sentAt;
    final long countedAtNanos;
    /** The owner's decision on the whole slice. */
    final Decision owner;

    Slice(Policy policy, SliceResult answer, long sentAt, long firstCost) {
        this.policy = policy;
        this.permits = answer.permits();
        this.left = new AtomicLong(answer.permits() - firstCost);
        this.expiresAt = sentAt + answer.validForNanos();
        this.sentAt = sentAt;
        this.countedAtNanos = answer.countedAtNanos();
        this.owner = answer.decision();
    }

    /**
     * Takes {@code cost} permits: the decision, or empty when fewer are left. {@code ahead} is the next slice this
     * node holds, if any: the owner counted it later.
     */
    Optional<Decision> take(long cost, long now, Optional<Slice> ahead) {
        for (long before = left.get(); before >= cost; before = left.get()) {
            if (left.compareAndSet(before, before - cost)) {
                return Optional.of(decision(before - cost, now, ahead.filter(next -> next != this)));
            }
        }
        return Optional.empty();
    }

    /**
     * A grant from this slice with {@code leftAfter} of it still unused: remaining is what the owner last said it
     * had left (when it counted this slice, or the next one) plus what this node holds unused; see the class
     * comment.
     */
    Decision decision(long leftAfter, long now, Optional<Slice> ahead) {
        long since = now - sentAt;
        // A next slice with nothing left was given back meanwhile (it is never granted from while it is next).
        long aheadLeft = ahead.map(next -> next.left.get()).orElse(0L);
        long remaining = aheadLeft == 0 ? owner.remaining() + leftAfter
                : Math.min(owner.remaining() + leftAfter, ahead.get().owner.remaining() + aheadLeft + leftAfter);
        return Decision.granted(owner.limit(), owner.limitName()).remaining(remaining)
                .nextPermitIn(Math.max(0, owner.nextPermitNanos() - since))
                .resetIn(Math.max(0, owner.resetAfterNanos() - since)).build();
    }

    /** The window algorithms take unused permits back; the buckets' level cannot. */
    boolean givesBack() {
        return policy.algorithm().countsPastRequests();
    }
}
