package dev.sluice.hazelcast.internal.calls;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Durations;
import java.util.Optional;

/**
 * The owner found the key spent for a request of {@code cost} ({@code owner}, asked at {@code askedAt} on this
 * node's clock): such requests are rejected until {@code until}, the owner's retry-after (or its next permit, when
 * sooner) counted from the asking.
 */
record Spent(Policy policy, long cost, Decision owner, long askedAt, long until) {

    /** The spent key the owner's answer says; empty when it granted, or says no time to hold on to. */
    static Optional<Spent> after(Policy policy, long cost, Decision owner, long askedAt) {
        if (owner.allowed() || owner.retryAfterNanos() <= 0 || owner.retryAfterNanos() == Decision.NEVER) {
            return Optional.empty();
        }
        // Until the permits remaining grow, at the latest: held longer, it would say none remain when some do.
        long next = owner.nextPermitNanos();
        long holdFor = next > 0 ? Math.min(next, owner.retryAfterNanos()) : owner.retryAfterNanos();
        return Optional.of(new Spent(policy, cost, owner, askedAt, Durations.saturatedAdd(askedAt, holdFor)));
    }

    /** The owner's rejection as it reads {@code now}: its waits shortened by the time since it was given. */
    Decision decision(long now) {
        long since = now - askedAt;
        return Decision.rejected(owner.limit(), owner.limitName(), Math.max(1, owner.retryAfterNanos() - since))
                .remaining(owner.remaining()).nextPermitIn(Math.max(0, owner.nextPermitNanos() - since))
                .resetIn(Math.max(0, owner.resetAfterNanos() - since)).build();
    }
}
