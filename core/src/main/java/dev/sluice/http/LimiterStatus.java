package dev.sluice.http;

import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.engine.RuleSet;
import dev.sluice.internal.DurationText;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.StoreHealth;
import java.time.Duration;
import java.util.Locale;

/**
 * What a started adapter limits with, as its start line logs it and its health view shows it: the store and the
 * members it sees, the rules and where they come from, the failure policy and header style. Immutable and thread-safe;
 * take a new one for the current members and rules. Durations are texts such as {@code 100ms} ({@link DurationText}).
 *
 * @param component the adapter, such as {@code Sluice filter 'api'}
 * @param store the store's mode ({@link StoreHealth#mode()})
 * @param membersSeen the cluster members the store sees ({@link StoreHealth#membersSeen()})
 * @param rules how many rules are in force
 * @param rulesSource where they come from: a location such as {@code classpath:sluice-rules.json}, {@code annotations},
 *     or {@code none}
 * @param rulesReload how often the rules file is checked for changes, or {@code off}
 * @param failurePolicy what decides when the store fails: {@code allow}, {@code reject}, {@code local}, or
 *     {@code none} for a store used as it is (the local store, which does not fail, or one given in code unguarded)
 * @param storeTimeout how long a store call may take before the failure policy decides, or {@code none}
 * @param headers the header style: {@code both}, {@code draft}, {@code legacy} or {@code none}
 */
public record LimiterStatus(String component, String store, int membersSeen, int rules, String rulesSource,
                            String rulesReload, String failurePolicy, String storeTimeout, String headers) {

    /** The words for a setting that does not apply. */
    public static final String NONE = "none";

    /**
     * The status of an adapter counting in {@code store} (a {@link FailurePolicyStore} shows its policy and timeout)
     * with the rules in force from {@code rulesSource}, checked for changes every {@link
     * ReloadingRuleSet#reloadInterval()} (zero: never).
     */
    public static LimiterStatus of(String component, CounterStore store, RuleSet rules, Duration reload,
                                   String rulesSource, HeaderStyle headers) {
        StoreHealth health = store.services().health();
        String policy = NONE;
        String timeout = NONE;
        if (store instanceof FailurePolicyStore guarded) {
            policy = guarded.onFailure().settingName();
            timeout = DurationText.format(guarded.timeout());
        }
        return new LimiterStatus(component, health.mode(), health.membersSeen(), rules.rules().size(),
                rulesSource, reload.isZero() ? "off" : DurationText.format(reload), policy, timeout,
                headers.name().toLowerCase(Locale.ROOT));
    }

    /**
     * The start line: {@code Sluice filter 'api' started: store hazelcast-client (2 members), 5 rules from
     * classpath:sluice-rules.json (reload every 30s), failure policy local, timeout 100ms, headers both}.
     */
    public String startLine() {
        String members = store.equals(StoreHealth.LOCAL.mode()) ? "this instance only"
                : membersSeen + (membersSeen == 1 ? " member" : " members");
        String ruleText = rulesSource.equals(NONE) ? "no rules (nothing is limited)"
                : rules + (rules == 1 ? " rule" : " rules") + " from " + rulesSource
                        + (rulesReload.equals("off") ? "" : " (reload every " + rulesReload + ")");
        String failure = failurePolicy.equals(NONE) ? "no failure policy"
                : "failure policy " + failurePolicy + ", timeout " + storeTimeout;
        return component + " started: store " + store + " (" + members + "), " + ruleText + ", " + failure
                + ", headers " + headers;
    }
}
