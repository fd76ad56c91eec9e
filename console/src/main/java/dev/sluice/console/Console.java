package dev.sluice.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.engine.KeyMask;
import dev.sluice.engine.ReloadingRuleSet;
import dev.sluice.engine.RuleOverrides;
import dev.sluice.engine.RuleSet;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LimitOverride;
import dev.sluice.store.SharedEntries;
import dev.sluice.store.StoreHealth;
import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * One instance's part of the cluster-wide console: every {@linkplain Builder#interval interval} it publishes a
 * {@link InstanceSnapshot} of its {@link ConsoleRecorder} into the store's {@linkplain
 * dev.sluice.store.StoreServices#sharedEntries shared entries} {@value #ENTRIES} (an entry that lives {@value
 * #TTL_INTERVALS} intervals, so a stopped instance leaves), and {@link #cluster()} sums every instance's snapshot and
 * flags drift, beside the overrides in force (which {@link #setOverride} and {@link #removeOverride} change for every
 * instance). No central server: any instance answers for all. Keys are masked in answers unless {@linkplain
 * Builder#clearKeys clear keys} are on.
 *
 * <pre>{@code
 * ConsoleRecorder recorder = new ConsoleRecorder();   // the filter's or binding's metrics
 * Console console = Console.builder(store, recorder).rules(ruleSet, "rules.json").build();
 * }</pre>
 *
 * <p>Thread-safe; {@link #close()} stops publishing. See {@code docs/console.md} and {@code docs/design/console.md}.
 */
public final class Console implements AutoCloseable {

    /** The name of the shared entries (in the Hazelcast store, the map {@code <counters>.console}). */
    public static final String ENTRIES = "console";

    /** How often an instance publishes unless told otherwise: 1 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

    /** How many intervals an entry outlives its publication. */
    public static final int TTL_INTERVALS = 5;

    /** How many intervals each series covers: two minutes at the default interval. */
    public static final int SLOTS = 120;

    private static final System.Logger LOG = System.getLogger(Console.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final String instance;
    private final ConsoleRecorder recorder;
    private final SharedEntries entries;
    private final Supplier<ReloadingRuleSet.Version> rulesVersion;
    private final Supplier<RuleSet> ruleSet;
    private final RuleOverrides overrides;
    private final String rulesSource;
    private final Supplier<StoreHealth> health;
    private final Duration interval;
    private final boolean clearKeys;
    private final Clock clock;
    private final History history = new History(SLOTS);
    /** Whether the last read of the cluster's snapshots failed: a failure is logged when it starts and ends. */
    private final AtomicBoolean readFailing = new AtomicBoolean();
    private final ScheduledExecutorService publisher;
    private final ScheduledFuture<?> publishing;

    private Console(Builder builder) {
        this.instance = builder.instance;
        this.recorder = builder.recorder;
        this.entries = builder.store.services().sharedEntries(ENTRIES);
        this.rulesVersion = builder.rulesVersion;
        this.ruleSet = builder.ruleSet;
        this.overrides = new RuleOverrides(builder.ruleSet, builder.store);
        this.rulesSource = builder.rulesSource;
        this.health = builder.health;
        this.interval = builder.interval;
        this.clearKeys = builder.clearKeys;
        this.clock = builder.clock;
        this.publisher = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "sluice-console-" + instance);
            thread.setDaemon(true);
            return thread;
        });
        long nanos = interval.toNanos();
        this.publishing = publisher.scheduleAtFixedRate(this::publishQuietly, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    /** A console publishing {@code recorder}'s figures into {@code store}'s cluster. */
    public static Builder builder(CounterStore store, ConsoleRecorder recorder) {
        return new Builder(store, recorder);
    }

    /** This instance's id in the cluster's snapshots. */
    public String instance() {
        return instance;
    }

    /** How long one series slot covers. */
    public Duration interval() {
        return interval;
    }

    /**
     * This instance's figures now (its series' newest slot is what was counted since the last publication), keys
     * masked unless clear keys are on: what the demo's live page shows.
     */
    public InstanceSnapshot local() {
        InstanceSnapshot snapshot = take(false);
        return new InstanceSnapshot(snapshot.format(), snapshot.instance(), snapshot.publishedAtMillis(),
                snapshot.intervalMillis(), snapshot.rulesSource(), snapshot.rulesHash(),
                snapshot.rulesLoadedAtMillis(), snapshot.store(), snapshot.rules().stream().map(this::shown).toList());
    }

    /**
     * Every live instance's snapshot, summed; keys masked unless clear keys are on. While the cluster cannot be read,
     * this instance's own figures alone, flagged ({@link ClusterView#clusterUnreachable()}) and logged once.
     */
    public ClusterView cluster() {
        List<InstanceSnapshot> snapshots = new ArrayList<>();
        boolean unreachable = false;
        try {
            entries.entries().forEach((id, text) -> parse(id, text).ifPresent(snapshots::add));
            if (readFailing.getAndSet(false)) {
                LOG.log(System.Logger.Level.INFO, "the console reads the cluster's snapshots again");
            }
        } catch (IllegalStateException e) {
            unreachable = true;
            snapshots.add(take(false));
            if (!readFailing.getAndSet(true)) {
                LOG.log(System.Logger.Level.WARNING, "the console cannot read the cluster's snapshots; it shows this "
                        + "instance's own figures alone until it can", e);
            }
        }
        snapshots.sort(Comparator.comparing(InstanceSnapshot::instance));
        Map<String, List<InstanceSnapshot>> byHash = snapshots.stream()
                .collect(Collectors.groupingBy(InstanceSnapshot::rulesHash));
        // The rules most instances enforce; on a tie, those loaded first (a drifting instance is one that changed).
        String common = byHash.entrySet().stream().max(Comparator
                .comparingInt((Map.Entry<String, List<InstanceSnapshot>> group) -> group.getValue().size())
                .thenComparing(group -> -group.getValue().stream()
                        .mapToLong(InstanceSnapshot::rulesLoadedAtMillis).min().orElse(0)))
                .map(Map.Entry::getKey).orElse("");
        List<ClusterView.InstanceView> instances = snapshots.stream().map(s -> new ClusterView.InstanceView(
                s.instance(), s.publishedAtMillis(), s.rulesSource(), s.rulesHash(), s.rulesLoadedAtMillis(),
                !s.rulesHash().equals(common), s.store())).toList();
        List<RuleFigures> rules = sum(snapshots).stream().map(this::shown).toList();
        return new ClusterView(InstanceSnapshot.FORMAT, clock.millis(), interval.toMillis(), byHash.size() > 1,
                unreachable, clearKeys, instances, rules, overrides());
    }

    /** The overrides in force, as answers show them. */
    public List<OverrideView> overrides() {
        RuleSet inForce = ruleSet.get();
        return overrides.list().stream().map(o -> OverrideView.of(o, clearKeys, inForce.rule(o.ruleId()).isPresent()))
                .toList();
    }

    /**
     * Sets an override, checked against the rules in force; every instance sharing the store applies it.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     * @throws UnsupportedOperationException for a store that keeps no overrides
     */
    public OverrideView setOverride(LimitOverride.Builder override) {
        return OverrideView.of(overrides.set(override), clearKeys, true);
    }

    /**
     * Removes the override of {@code rule} and {@code key} (in clear or as its mask; empty for the rule's own),
     * logging {@code removedBy}.
     *
     * @return the override removed; empty when none is in force
     */
    public Optional<OverrideView> removeOverride(String rule, String key, String removedBy) {
        String resolved = key.isEmpty() ? key : overrides.resolvedKey(rule, key);
        for (LimitOverride override : overrides.list()) {
            if (OverrideView.names(override, rule, key) || OverrideView.names(override, rule, resolved)) {
                return overrides.removeListed(override, removedBy).map(o -> OverrideView.of(o, clearKeys, true));
            }
        }
        return Optional.empty();
    }

    /** Publishes now (also done every interval); for tests and for a last snapshot. */
    void publish() {
        InstanceSnapshot snapshot = take(true);
        try {
            entries.put(instance, JSON.writeValueAsString(snapshot), interval.multipliedBy(TTL_INTERVALS));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a snapshot is always writable", e);
        }
    }

    /** The JSON text this instance would publish now, without publishing it (its size is the publishing cost). */
    public String snapshotText() {
        try {
            return JSON.writeValueAsString(take(false));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a snapshot is always writable", e);
        }
    }

    private void publishQuietly() {
        try {
            publish();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "the console could not publish this instance's snapshot", e);
        }
    }

    /** Samples the recorder, recording the sample in the history when {@code advance} (once per interval). */
    private synchronized InstanceSnapshot take(boolean advance) {
        StoreHealth store = health.get();
        List<RuleFigures> rules = new ArrayList<>();
        for (ConsoleRecorder.Sample sample : recorder.sample()) {
            rules.add(new RuleFigures(sample.id(), sample.mode(), sample.limit(), sample.totals(),
                    store.cluster().synchronised().overAdmitted().getOrDefault(sample.id(), 0L),
                    advance ? history.next(sample.id(), sample.totals()) : history.peek(sample.id(), sample.totals()),
                    sample.keys(), sample.costs()));
        }
        rules.sort(Comparator.comparing(RuleFigures::id));
        ReloadingRuleSet.Version version = rulesVersion.get();
        return new InstanceSnapshot(InstanceSnapshot.FORMAT, instance, clock.millis(), interval.toMillis(),
                rulesSource, version.hash(), version.loadedAt().toEpochMilli(),
                new InstanceSnapshot.StoreFigures(store.mode(), store.membersSeen(), store.lastMinute().failed(),
                        store.lastMinute().timedOut(), store.lastMinute().shed(),
                        store.cluster().leasing().permitsHeld(), store.cluster().synchronised().hitsWaiting()),
                List.copyOf(rules));
    }

    private static Optional<InstanceSnapshot> parse(String id, String text) {
        try {
            InstanceSnapshot snapshot = JSON.readValue(text, InstanceSnapshot.class);
            if (snapshot.format() == InstanceSnapshot.FORMAT) {
                return Optional.of(snapshot);
            }
            LOG.log(System.Logger.Level.DEBUG, "console snapshot of " + id + " skipped: format " + snapshot.format());
        } catch (JsonProcessingException e) {
            LOG.log(System.Logger.Level.DEBUG, "console snapshot of " + id + " skipped: unreadable", e);
        }
        return Optional.empty();
    }

    /**
     * Every rule's figures across {@code snapshots}: totals and keys summed, each series shifted so that its slots
     * line up with the newest snapshot's (by publishing time over the interval).
     */
    static List<RuleFigures> sum(List<InstanceSnapshot> snapshots) {
        long newest = snapshots.stream().mapToLong(s -> s.publishedAtMillis() / Math.max(1, s.intervalMillis()))
                .max().orElse(0);
        Map<String, RuleFigures> summed = new LinkedHashMap<>();
        Map<String, Map<String, KeyFigures>> keys = new HashMap<>();
        for (InstanceSnapshot snapshot : snapshots) {
            long shift = newest - snapshot.publishedAtMillis() / Math.max(1, snapshot.intervalMillis());
            for (RuleFigures rule : snapshot.rules()) {
                RuleFigures into = summed.computeIfAbsent(rule.id(), id -> new RuleFigures(id, rule.mode(),
                        rule.limit(), Counts.ZERO, 0, RuleFigures.Series.zeros(SLOTS), List.of(), List.of()));
                RuleFigures.Series series = into.series();
                int length = rule.series().length();
                for (int i = 0; i < length; i++) {
                    long slot = SLOTS - length + i - shift;
                    if (slot >= 0 && slot < SLOTS) {
                        series.add((int) slot, rule.series().at(i));
                    }
                }
                summed.put(rule.id(), new RuleFigures(rule.id(), into.mode(), into.limit(),
                        into.totals().plus(rule.totals()), into.overAdmitted() + rule.overAdmitted(), series,
                        List.of(), plus(into.costs(), rule.costs())));
                Map<String, KeyFigures> ruleKeys = keys.computeIfAbsent(rule.id(), id -> new HashMap<>());
                for (KeyFigures key : rule.keys()) {
                    ruleKeys.merge(key.key(), key, (a, b) -> new KeyFigures(a.key(), a.limited() + b.limited(),
                            a.error() + b.error()));
                }
            }
        }
        List<RuleFigures> rules = new ArrayList<>();
        summed.values().forEach(rule -> rules.add(new RuleFigures(rule.id(), rule.mode(), rule.limit(),
                rule.totals(), rule.overAdmitted(), rule.series(), keys.getOrDefault(rule.id(), Map.of()).values()
                        .stream().sorted(Comparator.comparingLong(KeyFigures::limited).reversed()
                                .thenComparing(KeyFigures::key))
                        .limit(ConsoleRecorder.PUBLISHED_KEYS).toList(), rule.costs())));
        rules.sort(Comparator.comparing(RuleFigures::id));
        return rules;
    }

    /** {@code rule} as answers show it: keys masked unless clear keys are on. */
    private RuleFigures shown(RuleFigures rule) {
        if (clearKeys) {
            return rule;
        }
        Function<KeyFigures, KeyFigures> mask = key -> new KeyFigures(KeyMask.of(key.key()), key.limited(),
                key.error());
        return new RuleFigures(rule.id(), rule.mode(), rule.limit(), rule.totals(), rule.overAdmitted(),
                rule.series(), rule.keys().stream().map(mask).toList(), rule.costs());
    }

    /** Two instances' costs of one rule, summed unit by unit. */
    private static List<CostFigures> plus(List<CostFigures> a, List<CostFigures> b) {
        Map<String, CostFigures> byUnit = new LinkedHashMap<>();
        for (CostFigures costs : a) {
            byUnit.merge(costs.unit(), costs, CostFigures::plus);
        }
        for (CostFigures costs : b) {
            byUnit.merge(costs.unit(), costs, CostFigures::plus);
        }
        return List.copyOf(byUnit.values());
    }

    /** Stops publishing; this instance's entry expires within {@value #TTL_INTERVALS} intervals. */
    @Override
    public void close() {
        publishing.cancel(false);
        publisher.shutdownNow();
    }

    /** Builds a {@link Console}; not thread-safe. */
    public static final class Builder {
        private final CounterStore store;
        private final ConsoleRecorder recorder;
        private String instance = defaultInstanceId();
        private Supplier<ReloadingRuleSet.Version> rulesVersion = Builder::noRules;
        private Supplier<RuleSet> ruleSet = RuleSet::empty;
        private String rulesSource = "none";
        private Supplier<StoreHealth> health;
        private Duration interval = DEFAULT_INTERVAL;
        private boolean clearKeys;
        private Clock clock = Clock.systemUTC();

        private Builder(CounterStore store, ConsoleRecorder recorder) {
            this.store = Objects.requireNonNull(store, "store");
            this.recorder = Objects.requireNonNull(recorder, "recorder");
            this.health = store.services()::health;
        }

        private static ReloadingRuleSet.Version noRules() {
            return new ReloadingRuleSet.Version(ReloadingRuleSet.Version.NONE, Instant.EPOCH);
        }

        private static String defaultInstanceId() {
            byte[] random = new byte[3];
            new SecureRandom().nextBytes(random);
            return ManagementFactory.getRuntimeMXBean().getName() + "/" + HexFormat.of().formatHex(random);
        }

        /** The instance's id in snapshots; default {@code pid@host/} and 6 random hex digits. */
        public Builder instance(String id) {
            this.instance = Objects.requireNonNull(id, "instance");
            return this;
        }

        /**
         * The rules the instance enforces, for their version (drift) and to check overrides against, and where they
         * come from.
         */
        public Builder rules(ReloadingRuleSet rules, String source) {
            Objects.requireNonNull(rules, "rules");
            this.rulesVersion = rules::version;
            this.ruleSet = rules;
            this.rulesSource = Objects.requireNonNull(source, "source");
            return this;
        }

        /** Where the store's health is read; default the store's own (give the failure-policy view if it has one). */
        public Builder health(Supplier<StoreHealth> storeHealth) {
            this.health = Objects.requireNonNull(storeHealth, "health");
            return this;
        }

        /** How often the instance publishes, and how long a series slot covers; default 1 s, at least 100 ms. */
        public Builder interval(Duration publishing) {
            if (publishing.compareTo(Duration.ofMillis(100)) < 0) {
                throw new IllegalArgumentException("interval must be at least 100ms, got " + publishing);
            }
            this.interval = publishing;
            return this;
        }

        /** Whether answers show keys in clear (default false: each key is its mask). */
        public Builder clearKeys(boolean clear) {
            this.clearKeys = clear;
            return this;
        }

        /** The wall clock of publishing times; default UTC system time. */
        public Builder clock(Clock wallClock) {
            this.clock = Objects.requireNonNull(wallClock, "clock");
            return this;
        }

        /** Starts publishing. */
        public Console build() {
            return new Console(this);
        }
    }
}
