package dev.sluice.engine;

import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.PermitQueue;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A request's permits, taken in rule order once its rate limits granted it: at once, or after a wait, going on
 * from the rule that made it wait. Used by one thread at a time (the evaluating one, then the continuation).
 */
final class PermitTaking {
    private final List<CompiledRule> rules;
    private final List<String> keys;
    private final List<RuleDecision> outcomes;
    private final List<Counted> counts;
    private final List<Reservation> reservations;
    private final CounterStore store;
    private final Permits permits;
    private final CompletableFuture<Evaluation> result = new CompletableFuture<>();

    PermitTaking(List<CompiledRule> rules, List<String> keys, List<RuleDecision> outcomes, List<Counted> counts,
                 List<Reservation> reservations, CounterStore store, Permits permits) {
        this.rules = rules;
        this.keys = keys;
        this.outcomes = outcomes;
        this.counts = counts;
        this.reservations = reservations;
        this.store = store;
        this.permits = permits;
    }

    /** Takes the permits from rule {@code first} on; returns the result, complete unless the request waits. */
    CompletableFuture<Evaluation> from(int first) {
        PermitQueue queue = permits.queue().orElse(null);
        for (int i = first; i < rules.size(); i++) {
            CompiledRule rule = rules.get(i);
            CompiledRule.Counting counting;
            if (queue != null && rule.waits()) {
                String key = keys.get(i);
                AtomicBoolean waited = new AtomicBoolean();
                CompletableFuture<Counted> wait = rule.enqueue(key, store, queue, permits.events(), waited);
                if (!wait.isDone()) {
                    int waitingRule = i;
                    wait.whenCompleteAsync((held, failure) -> resume(held, failure, waitingRule, waited.get()),
                            permits.continuation());
                    // A result cancelled (the request went away) cancels the wait, at once if it already is.
                    result.whenComplete((evaluation, failure) -> {
                        if (result.isCancelled()) {
                            wait.cancel(false);
                        }
                    });
                    return result;
                }
                counting = rule.waited(key, CompiledRule.join(wait, key), permits.events(), waited.get());
            } else {
                counting = rule.acquire(keys.get(i), store, permits.events());
            }
            if (RuleSet.add(counting, outcomes, counts)) {
                RuleSet.giveBack(outcomes, counts);
                break;
            }
        }
        if (!result.complete(Evaluation.of(outcomes, counts, reservations))) {
            // Cancelled meanwhile: the request went away, and keeps nothing.
            RuleSet.giveBack(outcomes, counts);
        }
        return result;
    }

    /** Goes on after the wait for rule {@code index}'s permit: rejected, cancelled, or on to the next rule. */
    private void resume(@Nullable Counted held, @Nullable Throwable failure, int index, boolean waited) {
        try {
            if (held == null) {
                RuleSet.giveBack(outcomes, counts);
                Throwable cause = failure instanceof CompletionException wrapped && wrapped.getCause() != null
                        ? wrapped.getCause() : failure;
                // Adapters log what fails, and a store may name the key it failed on: masked, as joins do.
                result.completeExceptionally(cause instanceof RuntimeException error
                        ? KeyMask.redacted(error, keys.get(index)) : cause == null ? new CancellationException()
                        : cause);
                return;
            }
            CompiledRule rule = rules.get(index);
            if (RuleSet.add(rule.waited(keys.get(index), held, permits.events(), waited), outcomes, counts)
                    || result.isDone()) {
                RuleSet.giveBack(outcomes, counts);
                result.complete(Evaluation.of(outcomes, counts, reservations));
                return;
            }
            from(index + 1);
        } catch (RuntimeException e) {
            RuleSet.giveBack(outcomes, counts);
            result.completeExceptionally(e);
        }
    }
}
