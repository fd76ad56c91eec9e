package dev.sluice.console;

import dev.sluice.Limit;
import dev.sluice.engine.KeyMask;
import dev.sluice.store.LimitOverride;
import java.util.List;
import java.util.Locale;

/**
 * An override in force ({@link LimitOverride}), as the console shows it. Immutable.
 *
 * @param rule the rule's id
 * @param everyKey whether it applies to every key of the rule
 * @param key the key (masked unless clear keys are on); empty when {@code everyKey}
 * @param kind {@code blocked}, {@code exempt} or {@code limits}
 * @param limits the limits that replace the rule's, such as {@code 1000/1m}; empty unless {@code limits}
 * @param reason why it was set
 * @param setBy who set it
 * @param setAtMillis when (epoch milliseconds)
 * @param expiresAtMillis when it ends (epoch milliseconds)
 * @param ruleInForce whether its rule is in force on the instance that answers (a reload may have removed it)
 */
public record OverrideView(String rule, boolean everyKey, String key, String kind, List<String> limits, String reason,
                           String setBy, long setAtMillis, long expiresAtMillis, boolean ruleInForce) {

    static OverrideView of(LimitOverride override, boolean clearKeys, boolean ruleInForce) {
        String key = override.key().map(k -> clearKeys ? k : KeyMask.of(k)).orElse("");
        return new OverrideView(override.ruleId(), override.key().isEmpty(), key,
                override.kind().name().toLowerCase(Locale.ROOT), override.limits().stream().map(Limit::name).toList(),
                override.reason(), override.setBy(), override.setAt().toEpochMilli(),
                override.expiresAt().toEpochMilli(), ruleInForce);
    }

    /** Whether {@code override} is the one {@code rule} and {@code key} (in clear, or its mask) name. */
    static boolean names(LimitOverride override, String rule, String key) {
        return override.ruleId().equals(rule) && (key.isEmpty() ? override.key().isEmpty()
                : override.key().filter(k -> k.equals(key) || KeyMask.of(k).equals(key)).isPresent());
    }
}
