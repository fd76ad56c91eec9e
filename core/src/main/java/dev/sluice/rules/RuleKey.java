package dev.sluice.rules;

import dev.sluice.annotation.OnMissingKey;
import dev.sluice.rules.match.CidrSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What a rule counts requests by: the key, the keys and client addresses it never counts, and what a request lacking
 * the key's attribute is counted under (a fallback key, its client address) or whether it skips the rule. Immutable.
 */
public final class RuleKey {

    private final KeySpec spec;
    private final List<String> exemptAddresses;
    private final CidrSet exemptRanges;
    private final Set<String> exemptKeys;
    private final OnMissingKey onMissingKey;
    private final @Nullable String fallbackKey;

    /**
     * @throws IllegalArgumentException for a fallback key with {@link OnMissingKey#SKIP}
     */
    RuleKey(KeySpec spec, List<String> exemptAddresses, CidrSet exemptRanges, Set<String> exemptKeys,
            OnMissingKey onMissingKey, @Nullable String fallbackKey) {
        if (onMissingKey == OnMissingKey.SKIP && fallbackKey != null) {
            throw new InvalidValueException("fallbackKey", "no fallbackKey when requests lacking the key skip the rule",
                    InvalidValueException.quoted(fallbackKey));
        }
        this.spec = spec;
        this.exemptAddresses = List.copyOf(exemptAddresses);
        this.exemptRanges = exemptRanges;
        this.exemptKeys = Set.copyOf(exemptKeys);
        this.onMissingKey = onMissingKey;
        this.fallbackKey = fallbackKey;
    }

    /**
     * {@code key} as a fallback key.
     *
     * @throws IllegalArgumentException when the key is blank
     */
    static String checkedFallbackKey(String key) {
        if (key.isBlank()) {
            throw new InvalidValueException("fallbackKey", "a non-empty string", InvalidValueException.quoted(key));
        }
        return key;
    }

    /** What requests are counted by. */
    public KeySpec spec() {
        return spec;
    }

    /** Client addresses and CIDR blocks the rule never counts, as declared. */
    public List<String> exemptAddresses() {
        return exemptAddresses;
    }

    /** Client addresses and CIDR blocks the rule never counts, parsed. */
    public CidrSet exemptRanges() {
        return exemptRanges;
    }

    /** Key values the rule never counts. */
    public Set<String> exemptKeys() {
        return exemptKeys;
    }

    /** What a request lacking the key's attribute gets: counted under a fallback, or the rule skipped. */
    public OnMissingKey onMissingKey() {
        return onMissingKey;
    }

    /** The one key counted for requests lacking the key's attribute; empty for each client's address. */
    public Optional<String> fallbackKey() {
        return Optional.ofNullable(fallbackKey);
    }

    @Override
    public String toString() {
        return spec.toString();
    }
}
