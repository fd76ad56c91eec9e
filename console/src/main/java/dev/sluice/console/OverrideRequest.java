package dev.sluice.console;

import dev.sluice.Limit;
import dev.sluice.store.LimitOverride;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST console/overrides}: which rule and key, what to do, for how long and why. Immutable.
 *
 * @param rule the rule's id
 * @param key the key in clear, as the rule resolves it from requests; absent or empty for every key of the rule
 * @param kind {@code blocked}, {@code exempt} (a key only) or {@code limits}
 * @param limits for {@code limits}: each {@code permits} per {@code periodSeconds}
 * @param lastingSeconds how long it lasts, from now
 * @param reason why (required)
 * @param setBy who sets it, when the caller is not an authenticated user (whose name is taken instead)
 */
public record OverrideRequest(@Nullable String rule, @Nullable String key, @Nullable String kind,
                              @Nullable List<LimitText> limits, long lastingSeconds, @Nullable String reason,
                              @Nullable String setBy) {

    /** One limit: {@code permits} per {@code periodSeconds}. */
    public record LimitText(long permits, long periodSeconds) {
    }

    /**
     * The override this asks for, set by {@code who}.
     *
     * @throws IllegalArgumentException naming what is missing or wrong
     */
    LimitOverride.Builder toBuilder(String who) {
        if (rule == null || rule.isBlank()) {
            throw new IllegalArgumentException("an override names its rule: 'rule' is missing");
        }
        LimitOverride.Builder builder = key == null || key.isEmpty() ? LimitOverride.forRule(rule)
                : LimitOverride.forKey(rule, key);
        switch (String.valueOf(kind).toLowerCase(Locale.ROOT)) {
            case "blocked" -> builder.blocked();
            case "exempt" -> builder.exempt();
            case "limits" -> builder.limits(limits == null ? List.of() : limits.stream()
                    .map(limit -> Limit.of(limit.permits(), Duration.ofSeconds(limit.periodSeconds()))).toList());
            default -> throw new IllegalArgumentException("'kind' must be blocked, exempt or limits, got " + kind);
        }
        if (lastingSeconds <= 0) {
            throw new IllegalArgumentException("'lastingSeconds' must be positive, got " + lastingSeconds);
        }
        return builder.lasting(Duration.ofSeconds(lastingSeconds)).reason(reason == null ? "" : reason).setBy(who);
    }
}
