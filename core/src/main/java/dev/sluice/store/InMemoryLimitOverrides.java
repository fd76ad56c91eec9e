package dev.sluice.store;

import dev.sluice.TimeSource;
import dev.sluice.internal.KeyHash;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Overrides held in this instance's memory: the local store's, and the copy each instance of a shared store keeps of
 * the cluster's, which the store brings up to date with {@link #replaceAll}. Decisions read one immutable table
 * through one volatile read; changes copy it. Every change is logged at INFO to {@code dev.sluice.overrides}, the key
 * masked. Thread-safe. See {@code docs/design/overrides.md}.
 */
public final class InMemoryLimitOverrides implements LimitOverrides {

    static final InMemoryLimitOverrides UNSUPPORTED = new InMemoryLimitOverrides(TimeSource.system(), false);

    private static final System.Logger LOG = System.getLogger("dev.sluice.overrides");
    private static final Comparator<LimitOverride> ORDER = Comparator.comparing(LimitOverride::ruleId)
            .thenComparing(o -> o.key().orElse(""));

    private final TimeSource time;
    private final boolean settable;
    private volatile Table table;

    /** Overrides of one instance; instants read from {@code time} as nanoseconds since the Unix epoch. */
    public InMemoryLimitOverrides(TimeSource time) {
        this(time, true);
    }

    private InMemoryLimitOverrides(TimeSource time, boolean settable) {
        this.time = Objects.requireNonNull(time, "time");
        this.settable = settable;
        this.table = new Table(List.of(), time);
    }

    @Override
    public Instant now() {
        return instant(time.nanos());
    }

    @Override
    public LimitOverride set(LimitOverride override) {
        if (!settable) {
            throw new UnsupportedOperationException("this store keeps no overrides");
        }
        requireLive(override);
        synchronized (this) {
            put(override);
        }
        LOG.log(Level.INFO, "override set: {0}", describe(override));
        return override;
    }

    /**
     * Checks that {@code override} has not ended by this instance's time.
     *
     * @throws IllegalArgumentException when it has
     */
    public void requireLive(LimitOverride override) {
        Instant now = now();
        if (override.expired(now)) {
            throw new IllegalArgumentException("override of rule '" + override.ruleId() + "' ended at "
                    + override.expiresAt() + ", before now (" + now + ")");
        }
    }

    @Override
    public Optional<LimitOverride> remove(LimitOverride.Target target, String removedBy) {
        Optional<LimitOverride> removed;
        synchronized (this) {
            removed = table.live(target, time.nanos());
            if (removed.isPresent()) {
                table = table.without(target);
            }
        }
        removed.ifPresent(o -> LOG.log(Level.INFO, "override removed by {0}: {1}", removedBy, describe(o)));
        return removed;
    }

    @Override
    public List<LimitOverride> list() {
        expire();
        long now = time.nanos();
        List<LimitOverride> live = new ArrayList<>();
        for (LimitOverride override : table.all()) {
            if (now < epochNanos(override.expiresAt())) {
                live.add(override);
            }
        }
        live.sort(ORDER);
        return live;
    }

    @Override
    public Active active() {
        Table current = table;
        if (current.isEmpty()) {
            return current;
        }
        if (time.nanos() >= current.earliestExpiryNanos) {
            expire();
            return table;
        }
        return current;
    }

    /**
     * Makes the overrides {@code all} (the cluster's, as read or told), logging at INFO each one that arrived
     * ({@code received}) or left ({@code withdrawn}) since the last change; one equal to the one held changes nothing.
     */
    public void replaceAll(Collection<LimitOverride> all) {
        List<LimitOverride> received = new ArrayList<>();
        List<LimitOverride> withdrawn = new ArrayList<>();
        synchronized (this) {
            Map<LimitOverride.Target, LimitOverride> held = new HashMap<>();
            for (LimitOverride override : table.all()) {
                held.put(override.target(), override);
            }
            long now = time.nanos();
            List<LimitOverride> next = new ArrayList<>(all.size());
            for (LimitOverride override : all) {
                if (now >= epochNanos(override.expiresAt())) {
                    continue;
                }
                LimitOverride before = held.remove(override.target());
                if (!override.equals(before)) {
                    received.add(override);
                }
                next.add(override);
            }
            for (LimitOverride gone : held.values()) {
                if (now < epochNanos(gone.expiresAt())) {
                    withdrawn.add(gone);
                }
            }
            table = new Table(next, time);
        }
        received.forEach(o -> LOG.log(Level.INFO, "override received: {0}", describe(o)));
        withdrawn.forEach(o -> LOG.log(Level.INFO, "override withdrawn: {0}", describe(o)));
    }

    /** Puts {@code override} in the table, replacing its target's; the caller holds the lock. */
    private void put(LimitOverride override) {
        List<LimitOverride> next = new ArrayList<>(table.all());
        next.removeIf(o -> o.target().equals(override.target()));
        next.add(override);
        table = new Table(next, time);
    }

    /** Drops the overrides that have ended, logging each. */
    private void expire() {
        List<LimitOverride> expired = new ArrayList<>();
        synchronized (this) {
            long now = time.nanos();
            if (now < table.earliestExpiryNanos) {
                return;
            }
            List<LimitOverride> next = new ArrayList<>();
            for (LimitOverride override : table.all()) {
                (now < epochNanos(override.expiresAt()) ? next : expired).add(override);
            }
            table = new Table(next, time);
        }
        expired.forEach(o -> LOG.log(Level.INFO, "override expired: {0}", describe(o)));
    }

    /**
     * What a log line says of {@code override}: {@code rule login, key #62baf845, blocked until <instant>, set by
     * alice at <instant>, reason "abuse"}; the key masked.
     */
    static String describe(LimitOverride override) {
        return "rule " + override.ruleId() + ", "
                + override.key().map(k -> "key " + KeyHash.mask(k)).orElse("every key")
                + ", " + override.action() + " until " + override.expiresAt() + ", set by " + override.setBy() + " at "
                + override.setAt() + ", reason \"" + override.reason() + "\"";
    }

    static long epochNanos(Instant instant) {
        try {
            return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
        } catch (ArithmeticException e) {
            return instant.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    static Instant instant(long epochNanos) {
        return Instant.ofEpochSecond(0, epochNanos);
    }

    /** One immutable set of overrides, indexed for decisions. */
    private static final class Table implements Active {
        private final List<LimitOverride> all;
        private final Map<String, LimitOverride> byRule;
        private final Map<String, Map<String, LimitOverride>> byKey;
        private final long earliestExpiryNanos;
        private final TimeSource time;

        Table(List<LimitOverride> overrides, TimeSource time) {
            this.all = List.copyOf(overrides);
            this.time = time;
            Map<String, LimitOverride> rules = new HashMap<>();
            Map<String, Map<String, LimitOverride>> keys = new HashMap<>();
            long earliest = Long.MAX_VALUE;
            for (LimitOverride override : all) {
                override.key().ifPresentOrElse(
                        key -> keys.computeIfAbsent(override.ruleId(), id -> new HashMap<>()).put(key, override),
                        () -> rules.put(override.ruleId(), override));
                earliest = Math.min(earliest, epochNanos(override.expiresAt()));
            }
            this.byRule = Map.copyOf(rules);
            Map<String, Map<String, LimitOverride>> frozen = new HashMap<>();
            keys.forEach((id, byValue) -> frozen.put(id, Map.copyOf(byValue)));
            this.byKey = Map.copyOf(frozen);
            this.earliestExpiryNanos = earliest;
        }

        List<LimitOverride> all() {
            return all;
        }

        @Override
        public boolean isEmpty() {
            return all.isEmpty();
        }

        @Override
        public Optional<LimitOverride> find(String ruleId, String key) {
            if (all.isEmpty()) {
                return Optional.empty();
            }
            long now = time.nanos();
            Map<String, LimitOverride> keys = byKey.get(ruleId);
            LimitOverride own = keys == null ? null : keys.get(key);
            if (own != null && now < epochNanos(own.expiresAt())) {
                return Optional.of(own);
            }
            LimitOverride rule = byRule.get(ruleId);
            return rule != null && now < epochNanos(rule.expiresAt()) ? Optional.of(rule) : Optional.empty();
        }

        /** The override of {@code target} in force at {@code now}, if any. */
        Optional<LimitOverride> live(LimitOverride.Target target, long now) {
            LimitOverride found = target.key().isPresent()
                    ? byKey.getOrDefault(target.ruleId(), Map.of()).get(target.key().get())
                    : byRule.get(target.ruleId());
            return found != null && now < epochNanos(found.expiresAt()) ? Optional.of(found) : Optional.empty();
        }

        Table without(LimitOverride.Target target) {
            List<LimitOverride> next = new ArrayList<>(all);
            next.removeIf(o -> o.target().equals(target));
            return new Table(next, time);
        }
    }
}
