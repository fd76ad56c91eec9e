package dev.sluice.rules;

import dev.sluice.Decision;
import dev.sluice.store.Counted;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The rules' verdict on one request: every rule that matched it, and the decision to act on.
 *
 * <p>The {@linkplain #limiting() limiting} outcome is the most restrictive decision ({@link Decision#mostRestrictive})
 * among enforcing rules: for a rejection, the longest wait among the rules that rejected it, which is when every
 * matched rule would grant the same request, since a rejected request is taken back from the rules that granted it
 * and their outcomes then say each rule's state after that (see {@code docs/design/all-or-nothing.md}). Shadow rules
 * are counted and {@linkplain #reported() reported} but never limit. Immutable and thread-safe.
 */
public final class Evaluation {

    private static final Evaluation NONE = new Evaluation(List.of(), List.of());

    private final List<RuleDecision> outcomes;
    /** How to take back each outcome's count, in the same order: what a later evaluation of the request gives back. */
    private final List<Counted> counts;
    /** Null when no enforcing rule counted the request. */
    private final @Nullable RuleDecision limiting;
    /** Null when no rule counted the request. */
    private final @Nullable RuleDecision reported;

    private Evaluation(List<RuleDecision> outcomes, List<Counted> counts) {
        this.outcomes = Collections.unmodifiableList(outcomes);
        this.counts = counts;
        this.limiting = mostRestrictive(this.outcomes, true);
        this.reported = mostRestrictive(this.outcomes, false);
    }

    /**
     * The evaluation of {@code outcomes}, with {@code counts} saying how to take back each one's count, which it
     * keeps rather than copies (one copy less per request): the caller must not change them afterwards.
     */
    static Evaluation of(List<RuleDecision> outcomes, List<Counted> counts) {
        return outcomes.isEmpty() ? NONE : new Evaluation(outcomes, counts);
    }

    /** How to take back each {@linkplain #outcomes() outcome}'s count, in the same order. */
    List<Counted> counts() {
        return counts;
    }

    private static @Nullable RuleDecision mostRestrictive(List<RuleDecision> outcomes, boolean enforcedOnly) {
        RuleDecision most = null;
        for (RuleDecision outcome : outcomes) {
            if (enforcedOnly && !outcome.enforced()) {
                continue;
            }
            if (most == null || Decision.mostRestrictive(most.decision(), outcome.decision()) != most.decision()) {
                most = outcome;
            }
        }
        return most;
    }

    /** Every rule that counted the request, in rule order; empty when none matched (or all were exempt or skipped). */
    public List<RuleDecision> outcomes() {
        return outcomes;
    }

    /** Whether any rule counted the request. */
    public boolean matched() {
        return !outcomes.isEmpty();
    }

    /** The enforcing rule's decision to act on: the most restrictive among them; empty when none enforces. */
    public Optional<RuleDecision> limiting() {
        return Optional.ofNullable(limiting);
    }

    /** The most restrictive decision of all rules, shadow ones included: what response headers report. */
    public Optional<RuleDecision> reported() {
        return Optional.ofNullable(reported);
    }

    /** Whether the request may proceed (after {@link #delay()}): no enforcing rule rejected it. */
    public boolean allowed() {
        return limiting == null || limiting.decision().allowed();
    }

    /** Whether rules matched and every one of them is in shadow mode: nothing here can reject or delay. */
    public boolean shadowOnly() {
        return !outcomes.isEmpty() && limiting == null;
    }

    /** Whether a shadow rule rejected the request (which proceeds anyway): what shadow mode is there to find out. */
    public boolean shadowRejected() {
        return outcomes.stream().anyMatch(o -> !o.enforced() && !o.decision().allowed());
    }

    /** How long to hold an allowed request (its leaky-bucket slot); zero when rejected or not queued. */
    public Duration delay() {
        return limiting == null ? Duration.ZERO : limiting.decision().delay();
    }

    /** The limiting rule's longest acceptable delay; zero when there is none. */
    public Duration maxDelay() {
        return limiting == null ? Duration.ZERO : limiting.rule().maxDelay();
    }

    /** When the request is rejected, the limiting rule's own response, if it has one; empty when allowed. */
    public Optional<RuleResponse> response() {
        return limiting == null || limiting.decision().allowed() ? Optional.empty() : limiting.rule().response();
    }

    /** Whether the request holds concurrency permits, which {@link #release()} returns when it ends. */
    public boolean holdsPermits() {
        if (!allowed()) {
            // A rejected request's permits were given back when it was rejected.
            return false;
        }
        for (int i = 0; i < outcomes.size(); i++) {
            if (holds(i)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Releases the concurrency permits the request holds, without waiting for the store; once the request has ended,
     * however it ended. Idempotent: a permit released once is not released again, so every path that ends a request
     * may call it. Nothing for a request that holds none (a rejected request's permits were given back already).
     */
    public void release() {
        for (int i = 0; i < outcomes.size(); i++) {
            if (holds(i)) {
                counts.get(i).giveBack();
            }
        }
    }

    private boolean holds(int i) {
        RuleDecision outcome = outcomes.get(i);
        return outcome.concurrency() && outcome.decision().allowed() && !outcome.decision().storeUnavailable();
    }

    @Override
    public String toString() {
        return "Evaluation[" + (allowed() ? "allowed" : "rejected") + " " + outcomes + "]";
    }
}
