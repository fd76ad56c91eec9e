package dev.sluice.engine;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.Quota;
import dev.sluice.rules.Mode;
import dev.sluice.rules.Rule;
import java.util.Objects;

/**
 * How one rule decided one request. Immutable.
 *
 * @param rule the rule
 * @param key the counter key's request part (the resolved, bounded key value, or the rule's fallback key)
 * @param counterKey the full key counted in the store: rule id, policy (or concurrency limit) fingerprint and key
 * @param quota what the request was counted under: the rule's rate policy or its tier's
 *     ({@link dev.sluice.algorithm.Policy}), or the rule's {@link ConcurrencyLimit} (a rule of both decides a request
 *     twice, one outcome each)
 * @param decision the store's decision; {@link Decision#limitName()} names the deciding limit
 */
public record RuleDecision(Rule rule, String key, String counterKey, Quota quota, Decision decision) {

    public RuleDecision {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(counterKey, "counterKey");
        Objects.requireNonNull(quota, "quota");
        Objects.requireNonNull(decision, "decision");
    }

    /** Whether this decision is acted on: the rule enforces. */
    public boolean enforced() {
        return rule.mode() == Mode.ENFORCE;
    }

    /** Whether this is the decision of a concurrency limit: a permit held while the request is in flight. */
    public boolean concurrency() {
        return quota instanceof ConcurrencyLimit;
    }

    /**
     * The rule's id, the {@linkplain KeyMask masked} key, the quota and the decision, such as
     * {@code RuleDecision[login key #62baf845 Policy[...] Decision[...]]}. Not the record's default, which would print
     * the key (client data) in clear wherever an {@link Evaluation} is logged.
     */
    @Override
    public String toString() {
        return "RuleDecision[" + rule.id() + " key " + KeyMask.of(key) + " " + quota + " " + decision + "]";
    }
}
