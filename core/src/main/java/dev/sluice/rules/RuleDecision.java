package dev.sluice.rules;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import java.util.Objects;

/**
 * How one rule decided one request. Immutable.
 *
 * @param rule the rule
 * @param key the counter key's request part (the resolved, bounded key value, or the rule's fallback key)
 * @param counterKey the full key counted in the store: rule id, policy fingerprint and key
 * @param policy the policy the request was counted under: the rule's own, or its tier's
 * @param decision the store's decision; {@link Decision#limitName()} names the deciding limit
 */
public record RuleDecision(Rule rule, String key, String counterKey, Policy policy, Decision decision) {

    public RuleDecision {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(counterKey, "counterKey");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(decision, "decision");
    }

    /** Whether this decision is acted on: the rule enforces. */
    public boolean enforced() {
        return rule.mode() == Mode.ENFORCE;
    }

    /**
     * The rule's id, the {@linkplain KeyMask masked} key, the policy and the decision, such as
     * {@code RuleDecision[login key #62baf845 Policy[...] Decision[...]]}. Not the record's default, which would print
     * the key (client data) in clear wherever an {@link Evaluation} is logged.
     */
    @Override
    public String toString() {
        return "RuleDecision[" + rule.id() + " key " + KeyMask.of(key) + " " + policy + " " + decision + "]";
    }
}
