package dev.sluice.engine;

import dev.sluice.Decision;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleResponse;
import dev.sluice.rules.match.RequestEnd;
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
 * are counted and {@linkplain #reported() reported} but never limit. A request whose estimate of a cost in a unit
 * other than requests is missing or invalid, under a rule without a default, is {@linkplain #refusal() refused} and
 * counted under no rule. An allowed request holds what its end gives back: concurrency permits, and
 * {@linkplain #reservations() reservations} of an estimate, settled once at their actual cost ({@link #end}).
 * Immutable (but for the reservations' settling) and thread-safe.
 */
public final class Evaluation {

    private static final Evaluation NONE = new Evaluation(List.of(), List.of(), List.of(), null);

    /**
     * Why a request was refused before anything was counted: the rule whose estimate it lacks or sends invalid, and
     * the reason (what came, and what the rule takes).
     */
    public record Refusal(Rule rule, String reason) {
    }

    private final List<RuleDecision> outcomes;
    /** How to take back each outcome's count, in the same order: what a later evaluation of the request gives back. */
    private final List<Counted> counts;
    /** The request's reservations, an earlier evaluation's included: what its end settles. */
    private final List<Reservation> reservations;
    /** Null unless the request was refused for its estimate. */
    private final @Nullable Refusal refusal;
    /** Null when no enforcing rule counted the request. */
    private final @Nullable RuleDecision limiting;
    /** Null when no rule counted the request. */
    private final @Nullable RuleDecision reported;

    private Evaluation(List<RuleDecision> outcomes, List<Counted> counts, List<Reservation> reservations,
                       @Nullable Refusal refusal) {
        this.outcomes = Collections.unmodifiableList(outcomes);
        this.counts = counts;
        this.reservations = Collections.unmodifiableList(reservations);
        this.refusal = refusal;
        this.limiting = mostRestrictive(this.outcomes, true);
        this.reported = mostRestrictive(this.outcomes, false);
    }

    /**
     * The evaluation of {@code outcomes}, with {@code counts} saying how to take back each one's count and
     * {@code reservations} the estimates among them to settle, which it keeps rather than copies (one copy less per
     * request): the caller must not change them afterwards.
     */
    static Evaluation of(List<RuleDecision> outcomes, List<Counted> counts, List<Reservation> reservations) {
        return outcomes.isEmpty() ? NONE : new Evaluation(outcomes, counts, reservations, null);
    }

    /**
     * The evaluation of a request refused by {@code rule} for its estimate ({@code reason}), before it was counted
     * under any other rule; {@code outcomes} are an earlier evaluation's, already given back.
     */
    static Evaluation refused(Rule rule, String reason, List<RuleDecision> outcomes, List<Counted> counts,
                              List<Reservation> reservations) {
        return new Evaluation(outcomes, counts, reservations, new Refusal(rule, reason));
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

    /** Whether the request may proceed (after {@link #delay()}): no enforcing rule rejected it, and none refused it. */
    public boolean allowed() {
        return refusal == null && (limiting == null || limiting.decision().allowed());
    }

    /**
     * Why the request was refused before anything was counted: a rule in a unit other than requests could not read its
     * estimate (missing or invalid, and the rule has no default); empty otherwise. Adapters answer it with 400.
     */
    public Optional<Refusal> refusal() {
        return Optional.ofNullable(refusal);
    }

    /**
     * The request's reservations of an estimate in a unit other than requests, each settled once at its actual cost
     * ({@link #settle}, or when the request ends); a rejected request's were given back.
     */
    public List<Reservation> reservations() {
        return reservations;
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

    /**
     * Whether the request holds what {@link #end} gives back when it ends: concurrency permits, or reservations to
     * settle. A rejected request's were given back when it was rejected.
     */
    public boolean holdsUntilEnd() {
        if (!allowed()) {
            return false;
        }
        if (!reservations.isEmpty()) {
            return true;
        }
        for (int i = 0; i < outcomes.size(); i++) {
            if (holds(i)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Ends the request, however it ended, without waiting for the store: releases its concurrency permits, and settles
     * each reservation not settled yet at the actual cost its rule reads from {@code end} ({@link Rule#actualCost()}),
     * or at its estimate when the request said none. Idempotent: a permit released once is not released again and a
     * reservation settles once, so every path that ends a request may call it. Nothing for a request that holds
     * nothing (a rejected request's permits and reservations were given back already).
     */
    public void end(RequestEnd end) {
        for (int i = 0; i < outcomes.size(); i++) {
            if (holds(i)) {
                counts.get(i).giveBack();
            }
        }
        for (Reservation reservation : reservations) {
            if (reservation.open()) {
                Rule rule = reservation.outcome().rule();
                reservation.settle(rule.actualCost().of(end, rule.id()).orElse(reservation.estimate()));
            }
        }
    }

    /**
     * Settles every reservation of the request not settled yet at {@code actualCost}, in the unit of each: what an
     * application that knows the cost says, at the end of the request or before it ends (the request's end then leaves
     * them as they are). For a request with reservations in several units, {@link #settle(String, long)}.
     *
     * @throws IllegalArgumentException when {@code actualCost} is negative
     */
    public void settle(long actualCost) {
        for (Reservation reservation : reservations) {
            reservation.settle(actualCost);
        }
    }

    /**
     * Settles every reservation of the request in {@code unit} not settled yet at {@code actualCost}; see
     * {@link #settle(long)}.
     *
     * @throws IllegalArgumentException when {@code actualCost} is negative
     */
    public void settle(String unit, long actualCost) {
        for (Reservation reservation : reservations) {
            if (reservation.unit().equals(unit)) {
                reservation.settle(actualCost);
            }
        }
    }

    private boolean holds(int i) {
        RuleDecision outcome = outcomes.get(i);
        return outcome.concurrency() && outcome.decision().allowed() && !outcome.decision().storeUnavailable();
    }

    @Override
    public String toString() {
        return "Evaluation[" + (allowed() ? "allowed" : refusal != null ? "refused" : "rejected") + " " + outcomes
                + (reservations.isEmpty() ? "" : " " + reservations) + "]";
    }
}
