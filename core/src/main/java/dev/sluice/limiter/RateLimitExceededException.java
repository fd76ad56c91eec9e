package dev.sluice.limiter;

import dev.sluice.Decision;
import java.time.Duration;

/**
 * Thrown by {@link RateLimiter#acquire} when the permits cannot be had within the caller's maximum wait, or never
 * can (the cost exceeds the capacity). Carries the rejecting {@link Decision}.
 */
public class RateLimitExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Decision decision;

    public RateLimitExceededException(Decision decision, long cost, Duration maxWait) {
        super(message(decision, cost, maxWait));
        this.decision = decision;
    }

    private static String message(Decision decision, long cost, Duration maxWait) {
        if (!decision.canSucceed()) {
            return "rate limit '" + decision.limitName() + "': a cost of " + cost
                    + " can never be granted, the capacity is " + decision.limit();
        }
        return "rate limit '" + decision.limitName() + "' exceeded: a cost of " + cost + " would be granted in "
                + decision.retryAfter() + ", longer than the maximum wait of " + maxWait;
    }

    /** The decision that rejected the request. */
    public Decision decision() {
        return decision;
    }
}
