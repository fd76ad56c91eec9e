package dev.sluice.hazelcast.internal.calls;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import java.util.Optional;

/**
 * The owner found the key spent for a request of {@code cost} ({@code owner}, asked at {@code askedAt} on this
 * node's clock): such requests are rejected until {@code until}, the owner's retry-after counted from the asking.
 */
record Spent(Policy policy, long cost, Decision owner, long askedAt, long until) {

    /** The spent key the owner's answer says; empty when it granted, or says no time to hold on to. */
    static Optional<Spent> after(Policy policy, long cost, Decision owner, long askedAt) {
        if (owner.allowed() || owner.retryAfterNanos() <= 0 || owner.retryAfterNanos() == Decision.NEVER) {
            return Optional.empty();
        }
        long until = askedAt + owner.retryAfterNanos();
        return Optional.of(new Spent(policy, cost, owner, askedAt, until < askedAt ? Long.MAX_VALUE : until));
    }

    /** The owner's rejection as it reads {@code now}: its waits shortened by the time since it was given. */
    Decision decision(long now) {
        long since = now - askedAt;
        return Decision.rejected(owner.limit(), owner.limitName(), Math.max(1, owner.retryAfterNanos() - since))
                .remaining(owner.remaining()).nextPermitIn(Math.max(0, owner.nextPermitNanos() - since))
                .resetIn(Math.max(0, owner.resetAfterNanos() - since)).build();
    }
}
