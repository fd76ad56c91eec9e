package dev.sluice.store;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.KeyHash;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A rule's limit changed at runtime, for one key of the rule or for every key, until a given instant: the key
 * {@linkplain Kind#BLOCKED blocked}, {@linkplain Kind#EXEMPT exempt} or counted under {@linkplain Kind#LIMITS other
 * limits}; a whole rule only under other limits. It says why, who set it and when. Kept by a store's
 * {@link LimitOverrides}, so every instance sharing the store applies it; see {@code docs/design/overrides.md}.
 *
 * <p>Built by {@link #forKey} or {@link #forRule}, and checked when built ({@link Builder#build}): a reason and a
 * setter, an expiry after the time of setting and at most {@link #MAX_DURATION} after it. Whether the rule exists
 * and its algorithm takes the limits, the rules check ({@code RuleSet.check}). Immutable and thread-safe; instants
 * are the wall clock's (a store's {@code TimeSource} read as nanoseconds since the Unix epoch).
 */
public final class LimitOverride {

    /** The longest an override may last: 30 days. Longer changes belong in the rules file. */
    public static final Duration MAX_DURATION = Duration.ofDays(30);

    /** The longest reason or setter name, in characters. */
    public static final int MAX_TEXT_LENGTH = 500;

    /** What an override does to the requests it covers. */
    public enum Kind {
        /** Rejected (429) without being counted, until the override ends; per key only. */
        BLOCKED,
        /** Passed without being counted, and without taking a concurrency permit; per key only. */
        EXEMPT,
        /** Counted under {@link #limits()} instead of the rule's own limits (every tier's). */
        LIMITS
    }

    /** What an override applies to: a rule's key, or every key of a rule. Immutable. */
    public record Target(String ruleId, Optional<String> key) {

        public Target {
            Objects.requireNonNull(ruleId, "ruleId");
            Objects.requireNonNull(key, "key");
            if (ruleId.isBlank()) {
                throw new IllegalArgumentException("an override names a rule: ruleId must not be blank");
            }
            if (key.isPresent() && key.get().isEmpty()) {
                throw new IllegalArgumentException("an override of a key names the key: key must not be empty");
            }
        }

        /** The key {@code key} of rule {@code ruleId}. */
        public static Target key(String ruleId, String key) {
            return new Target(ruleId, Optional.of(key));
        }

        /** Every key of rule {@code ruleId}. */
        public static Target rule(String ruleId) {
            return new Target(ruleId, Optional.empty());
        }

        /** The rule and, masked, the key (client data): {@code login key #62baf845}, or {@code login}. */
        @Override
        public String toString() {
            return key.map(k -> ruleId + " key " + KeyHash.mask(k)).orElse(ruleId);
        }
    }

    private final Target target;
    private final Kind kind;
    private final List<Limit> limits;
    private final String reason;
    private final String setBy;
    private final Instant setAt;
    private final Instant expiresAt;

    private LimitOverride(Target target, Kind kind, List<Limit> limits, String reason, String setBy, Instant setAt,
                          Instant expiresAt) {
        this.target = target;
        this.kind = kind;
        this.limits = List.copyOf(limits);
        this.reason = reason;
        this.setBy = setBy;
        this.setAt = setAt;
        this.expiresAt = expiresAt;
    }

    /** An override of one key of rule {@code ruleId}: the key as the rule resolves it from requests. */
    public static Builder forKey(String ruleId, String key) {
        return new Builder(Target.key(ruleId, key));
    }

    /** An override of every key of rule {@code ruleId}; a key's own override, if any, takes precedence. */
    public static Builder forRule(String ruleId) {
        return new Builder(Target.rule(ruleId));
    }

    public Target target() {
        return target;
    }

    /** The rule's id. */
    public String ruleId() {
        return target.ruleId();
    }

    /** The key; empty for an override of every key of the rule. */
    public Optional<String> key() {
        return target.key();
    }

    public Kind kind() {
        return kind;
    }

    /** The limits that replace the rule's, all of which must pass; empty unless {@link Kind#LIMITS}. */
    public List<Limit> limits() {
        return limits;
    }

    /** Why it was set, as the setter said. */
    public String reason() {
        return reason;
    }

    /** Who set it (an operator's name, a system's). */
    public String setBy() {
        return setBy;
    }

    /** When it was set. */
    public Instant setAt() {
        return setAt;
    }

    /** When it ends: from this instant on, the rule's own limits apply again. */
    public Instant expiresAt() {
        return expiresAt;
    }

    /** Whether it has ended at {@code now}. */
    public boolean expired(Instant now) {
        return !now.isBefore(expiresAt);
    }

    /**
     * What a {@link Kind#BLOCKED} or {@link Kind#EXEMPT} override decides, counting nothing, for a limit of
     * {@code limit} permits at {@code now}: blocked is rejected with {@code remaining} 0 and the retry, next permit and
     * reset all at the override's end; exempt is allowed with {@code remaining} {@code limit}. The limit name is the
     * rule's id followed by {@code :blocked} or {@code :exempt}, as the problem document and headers show it.
     *
     * @throws IllegalStateException for a {@link Kind#LIMITS} override, which the store decides
     */
    public Decision decision(long limit, Instant now) {
        return switch (kind) {
            case BLOCKED -> {
                long untilEnd = Math.max(1, nanosBetween(now, expiresAt));
                yield Decision.rejected(limit, ruleId() + ":blocked", untilEnd).nextPermitIn(untilEnd).resetIn(untilEnd)
                        .build();
            }
            case EXEMPT -> Decision.granted(limit, ruleId() + ":exempt").remaining(limit).nextPermitIn(0).build();
            case LIMITS -> throw new IllegalStateException("an override of limits is decided by the store");
        };
    }

    private static long nanosBetween(Instant from, Instant to) {
        try {
            return Duration.between(from, to).toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE - 1;
        }
    }

    /** This override for {@code newTarget} (the same rule's key as requests resolve it), everything else the same. */
    public LimitOverride withTarget(Target newTarget) {
        return new LimitOverride(newTarget, kind, limits, reason, setBy, setAt, expiresAt);
    }

    /**
     * Checks that this override can apply to {@code owner} (such as {@code rule 'api'}), which counts under
     * {@code policy}, empty for a concurrency limit alone: only a blocked or exempt override applies to that, and
     * other limits must be ones the policy's algorithm takes.
     *
     * @throws IllegalArgumentException naming the owner and the problem
     */
    public void checkAppliesTo(String owner, Optional<Policy> policy) {
        if (kind() != Kind.LIMITS) {
            return;
        }
        Policy own = policy.orElseThrow(() -> new IllegalArgumentException(owner + " has a concurrency limit alone: an"
                + " override can block or exempt its keys, not give it rate limits"));
        try {
            own.withLimits(limits());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(owner + " counts with the "
                    + own.algorithm().name().toLowerCase(Locale.ROOT) + ", which cannot take the override's limits: "
                    + e.getMessage(), e);
        }
    }

    /** This override with {@code newLimits} (an override of limits, its limits renamed), everything else the same. */
    public LimitOverride withLimits(List<Limit> newLimits) {
        if (kind != Kind.LIMITS || newLimits.size() != limits.size()) {
            throw new IllegalArgumentException("an override of limits takes as many limits as it has");
        }
        return new LimitOverride(target, kind, newLimits, reason, setBy, setAt, expiresAt);
    }

    /** What it does, such as {@code blocked}, {@code exempt} or {@code limits [100/1m]}. */
    public String action() {
        return kind == Kind.LIMITS ? "limits " + limits : kind.name().toLowerCase(Locale.ROOT);
    }

    /**
     * This override as JSON text (format 1): {@code {"format":1,"rule":"api","key":"account-42","kind":"blocked",
     * "limits":[],"reason":"...","setBy":"alice","setAt":"2026-11-27T00:00:00Z","expiresAt":"..."}}, each limit as
     * {@code {"permits":100,"periodNanos":60000000000,"capacity":100,"name":"100/1m"}}; the key in clear (client data:
     * what a shared store keeps, not what a log shows).
     */
    public String toJson() {
        return OverrideJson.write(this);
    }

    /**
     * The override {@link #toJson()} wrote, checked as {@link Builder#build} checks one set at its {@link #setAt()}.
     *
     * @throws IllegalArgumentException for text that is not an override's JSON, of a newer format, or fails the checks
     */
    public static LimitOverride fromJson(String json) {
        return OverrideJson.read(json);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof LimitOverride other && target.equals(other.target) && kind == other.kind
                && limits.equals(other.limits) && reason.equals(other.reason) && setBy.equals(other.setBy)
                && setAt.equals(other.setAt) && expiresAt.equals(other.expiresAt);
    }

    @Override
    public int hashCode() {
        return Objects.hash(target, kind, limits, reason, setBy, setAt, expiresAt);
    }

    /** The rule and action, without the key (client data): {@code LimitOverride[login (a key): blocked until ...]}. */
    @Override
    public String toString() {
        return "LimitOverride[" + target.ruleId() + (target.key().isPresent() ? " (a key)" : " (every key)") + ": "
                + action() + " until " + expiresAt + ", set by " + setBy + " at " + setAt + "]";
    }

    /** Builds a {@link LimitOverride}; not thread-safe. */
    public static final class Builder {
        private final Target target;
        private @Nullable Kind kind;
        private List<Limit> limits = List.of();
        private String reason = "";
        private String setBy = "";
        private @Nullable Instant until;
        private @Nullable Duration lasting;

        private Builder(Target target) {
            this.target = target;
        }

        /** Rejects the key's requests. */
        public Builder blocked() {
            return kind(Kind.BLOCKED, List.of());
        }

        /** Passes the key's requests uncounted. */
        public Builder exempt() {
            return kind(Kind.EXEMPT, List.of());
        }

        /** Counts the requests under these limits (all must pass) instead of the rule's own. */
        public Builder limits(Limit... newLimits) {
            return limits(List.of(newLimits));
        }

        /** Like {@link #limits(Limit...)}, with the limits in a list. */
        public Builder limits(List<Limit> newLimits) {
            if (newLimits.isEmpty()) {
                throw new IllegalArgumentException("an override of limits needs at least one limit");
            }
            return kind(Kind.LIMITS, newLimits);
        }

        private Builder kind(Kind newKind, List<Limit> newLimits) {
            this.kind = newKind;
            this.limits = List.copyOf(newLimits);
            return this;
        }

        /** Ends at {@code instant}; replaces any {@link #lasting} given. */
        public Builder until(Instant instant) {
            this.until = Objects.requireNonNull(instant, "until");
            this.lasting = null;
            return this;
        }

        /** Ends {@code duration} after it is built; replaces any {@link #until} given. */
        public Builder lasting(Duration duration) {
            this.lasting = Objects.requireNonNull(duration, "lasting");
            this.until = null;
            return this;
        }

        /** Why it is set (required): what the log and the console show. */
        public Builder reason(String why) {
            this.reason = Objects.requireNonNull(why, "reason");
            return this;
        }

        /** Who sets it (required). */
        public Builder setBy(String who) {
            this.setBy = Objects.requireNonNull(who, "setBy");
            return this;
        }

        /**
         * The override, set at {@code now}.
         *
         * @throws IllegalArgumentException naming what is wrong: no action, blocked or exempt for a whole rule, no
         *     expiry, an expiry not after {@code now} or more than {@link #MAX_DURATION} after it, a blank or too
         *     long reason or setter
         */
        public LimitOverride build(Instant now) {
            String about = "override of " + (target.key().isPresent() ? "a key of " : "every key of ") + "rule '"
                    + target.ruleId() + "': ";
            if (kind == null) {
                throw new IllegalArgumentException(about + "say what it does: blocked(), exempt() or limits(...)");
            }
            if (target.key().isEmpty() && kind != Kind.LIMITS) {
                throw new IllegalArgumentException(about + "only a key can be "
                        + kind.name().toLowerCase(Locale.ROOT) + "; a whole rule takes other limits");
            }
            Instant expiry;
            if (until != null) {
                expiry = until;
            } else if (lasting != null) {
                if (lasting.isNegative() || lasting.isZero() || lasting.compareTo(MAX_DURATION) > 0) {
                    throw new IllegalArgumentException(about + "it must last longer than zero and at most "
                            + MAX_DURATION.toDays() + " days, got " + lasting);
                }
                expiry = now.plus(lasting);
            } else {
                throw new IllegalArgumentException(about + "say when it ends: until(...) or lasting(...)");
            }
            if (!expiry.isAfter(now)) {
                throw new IllegalArgumentException(about + "it must end after now (" + now + "), got " + expiry);
            }
            if (expiry.isAfter(now.plus(MAX_DURATION))) {
                throw new IllegalArgumentException(about + "it may last at most " + MAX_DURATION.toDays()
                        + " days (until " + now.plus(MAX_DURATION) + "), got until " + expiry);
            }
            requireText(about, "reason", reason);
            requireText(about, "setBy", setBy);
            return new LimitOverride(target, kind, limits, reason.strip(), setBy.strip(), now, expiry);
        }

        private static void requireText(String about, String field, String text) {
            if (text.isBlank()) {
                throw new IllegalArgumentException(about + field + " is required");
            }
            if (text.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException(about + field + " must be one line, without control characters");
            }
            if (text.length() > MAX_TEXT_LENGTH) {
                throw new IllegalArgumentException(about + field + " must be at most " + MAX_TEXT_LENGTH
                        + " characters, got " + text.length());
            }
        }
    }
}
