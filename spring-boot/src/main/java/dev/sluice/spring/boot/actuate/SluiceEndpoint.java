package dev.sluice.spring.boot.actuate;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Limit;
import dev.sluice.engine.KeyMask;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.http.LimiterStatus;
import dev.sluice.rules.Rule;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.store.LimitOverride;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The actuator endpoint {@code sluice}: what the filter limits with now (its start line's facts), the rules in force
 * with their source and version, and the overrides in force, their keys masked as the console masks them. Read only;
 * overrides are set from the console or {@code RateLimiter.setOverride}. Thread-safe.
 */
@Endpoint(id = "sluice")
public final class SluiceEndpoint {

    private final RateLimitFilter filter;

    public SluiceEndpoint(RateLimitFilter filter) {
        this.filter = Objects.requireNonNull(filter, "filter");
    }

    @ReadOperation
    public Limiting limiting() {
        ReloadingRuleSet rules = filter.rules();
        ReloadingRuleSet.Version version = rules.version();
        return new Limiting(filter.status(), version.hash(), version.loadedAt(),
                rules.get().rules().stream().map(RuleView::of).toList(),
                filter.overrides().list().stream().map(OverrideView::of).toList());
    }

    /**
     * What the endpoint answers.
     *
     * @param status the store, its members, the rules' count and source, the failure policy, timeout and headers
     * @param rulesVersion the first 16 hex digits of the SHA-256 of the rules file, {@code none} for annotations alone
     * @param rulesLoadedAt when these rules were loaded
     * @param rules the rules in force
     * @param overrides the overrides in force
     */
    public record Limiting(LimiterStatus status, String rulesVersion, Instant rulesLoadedAt, List<RuleView> rules,
                           List<OverrideView> overrides) {
    }

    /**
     * A rule in force.
     *
     * @param id its id
     * @param origin where it was defined: the file, line and column, or the annotated class and method
     * @param mode {@code enforce} or {@code shadow}
     * @param paths the path patterns it matches; empty for a rule of annotations alone
     * @param methods the HTTP methods it matches; empty for any
     * @param handlers how many annotated handler methods it matches
     * @param key what requests are counted by, such as {@code ip} or {@code header:X-Api-Key}
     * @param limits its limits by name, such as {@code per-ip:3/1m}; with tiers, the default tier's
     * @param concurrency its concurrency limit's name; empty for none
     */
    public record RuleView(String id, String origin, String mode, List<String> paths, Set<String> methods,
                           int handlers, String key, List<String> limits, String concurrency) {

        static RuleView of(Rule rule) {
            return new RuleView(rule.id(), rule.origin(), rule.mode().name().toLowerCase(Locale.ROOT),
                    rule.match().paths(), rule.match().methods(), rule.match().resourceMethods().size(),
                    rule.key().spec().toString(),
                    rule.requestLimits().map(limits -> limits.defaults().limits()).orElse(List.of()).stream()
                            .map(Limit::name).toList(),
                    rule.concurrency().map(ConcurrencyLimit::name).orElse(""));
        }
    }

    /**
     * An override in force.
     *
     * @param rule the rule's id
     * @param key the key, masked; empty when the override applies to every key of the rule
     * @param kind {@code blocked}, {@code exempt} or {@code limits}
     * @param limits the limits that replace the rule's; empty unless {@code limits}
     * @param reason why it was set
     * @param setBy who set it
     * @param expiresAt when it ends
     */
    public record OverrideView(String rule, String key, String kind, List<String> limits, String reason,
                               String setBy, Instant expiresAt) {

        static OverrideView of(LimitOverride override) {
            return new OverrideView(override.ruleId(), override.key().map(KeyMask::of).orElse(""),
                    override.kind().name().toLowerCase(Locale.ROOT),
                    override.limits().stream().map(Limit::name).toList(), override.reason(), override.setBy(),
                    override.expiresAt());
        }
    }
}
