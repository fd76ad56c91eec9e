package dev.sluice.metrics;

import dev.sluice.engine.RuleDecision;
import java.util.Locale;

/** What one rule did to one request, as metrics tell it. */
public enum Outcome {
    /** Let through at once (shadow rules that would have allowed are counted here too). */
    ALLOWED,
    /** Let through after waiting for its slot. */
    DELAYED,
    /** Rejected. */
    REJECTED,
    /** A shadow rule that would have rejected: the request went through. */
    SHADOW_REJECTED,
    /** The store failed; the failure policy decided. */
    STORE_ERROR;

    private final String tag = name().toLowerCase(Locale.ROOT).replace('_', '-');

    /** The outcome of a rule's decision. */
    public static Outcome of(RuleDecision decision) {
        if (!decision.decision().allowed()) {
            return decision.enforced() ? REJECTED : SHADOW_REJECTED;
        }
        return decision.enforced() && decision.decision().delayNanos() > 0 ? DELAYED : ALLOWED;
    }

    /** The tag value: {@code allowed}, {@code delayed}, {@code rejected}, {@code shadow-rejected}, ... */
    public String tag() {
        return tag;
    }
}
