package dev.sluice.metrics;

import dev.sluice.engine.Evaluation;
import dev.sluice.engine.RuleDecision;
import dev.sluice.store.StoreHealth;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import java.lang.ref.Reference;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * {@link DecisionMetrics} as Micrometer meters: the counter {@value #DECISIONS} tagged {@code rule} and
 * {@code outcome}, the timer {@value #DECISION_TIME} of whole-request decisions, and per rule (tag {@code rule}) the
 * gauge {@value #PERMITS_HELD} of the concurrency permits this node holds and the counters {@value #WAITS_STARTED},
 * {@value #WAITS_GRANTED} and {@value #WAITS_TIMED_OUT} of its requests' waits for them, the counter
 * {@value #SYNC_OVER_ADMITTED} of the synchronised mode's measured error, and per rule in a unit other than requests
 * (tags {@code rule} and {@code unit}) the counters {@value #COST_RESERVED}, {@value #COST_SETTLED} and
 * {@value #COST_DEBT} and the gauge {@value #COST_OUTSTANDING}. Rule ids are the only
 * request-dependent tag, and they come from the operator's rules, never from a request. The only Sluice class that
 * needs Micrometer on the classpath. Thread-safe.
 */
public final class MicrometerDecisionMetrics implements DecisionMetrics {

    /** Decisions per rule and outcome. */
    public static final String DECISIONS = "sluice.decisions";

    /** The time to decide one request over all its rules. */
    public static final String DECISION_TIME = "sluice.decision.time";

    /** The concurrency permits of a rule this node holds now: taken by its requests and not yet released. */
    public static final String PERMITS_HELD = "sluice.permits.held";

    /** Requests over a rule's concurrency limit that began waiting for a permit. */
    public static final String WAITS_STARTED = "sluice.permit.waits.started";

    /** Requests that waited and got their permit. */
    public static final String WAITS_GRANTED = "sluice.permit.waits.granted";

    /** Requests that waited until their wait ended without a permit, and were rejected. */
    public static final String WAITS_TIMED_OUT = "sluice.permit.waits.timed.out";

    /**
     * Per rule, the permits by which this node's synchronised hits took keys past their limits when the owners merged
     * them ({@link StoreHealth.Synchronised#overAdmitted()}), read from the watched store's health; 0 for other rules.
     */
    public static final String SYNC_OVER_ADMITTED = "sluice.sync.overadmitted";

    /** Units reserved per rule: the estimates of the requests a rule in a unit other than requests counted. */
    public static final String COST_RESERVED = "sluice.cost.reserved";

    /** Units settled per rule: the actual costs of those requests (0 for a reservation given back). */
    public static final String COST_SETTLED = "sluice.cost.settled";

    /** Units charged as debt per rule: what settled requests cost beyond their estimates. */
    public static final String COST_DEBT = "sluice.cost.debt";

    /** Units reserved and not yet settled per rule on this node: the estimates of its requests in flight. */
    public static final String COST_OUTSTANDING = "sluice.cost.outstanding";

    /** The gauges of the store's {@link StoreHealth}, tagged {@code mode}: {@code sluice.store.members} and more. */
    public static final String STORE = "sluice.store";

    private final MeterRegistry registry;
    private final Timer decisionTime;
    /** Per rule id, its meters: found by the id alone on each decision, never by name and tags in the registry. */
    private final Map<String, RuleMeters> rules = new ConcurrentHashMap<>();
    /** The health of the store watched last ({@link #watch}); a local store's while none is. */
    private volatile Supplier<StoreHealth> watched = () -> StoreHealth.LOCAL;

    @SuppressWarnings("exports")  // an application that uses Micrometer requires it itself
    public MicrometerDecisionMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.decisionTime = Timer.builder(DECISION_TIME)
                .description("Time to decide a request against every rule that applies to it")
                .register(registry);
    }

    /** Metrics on Micrometer's global registry. */
    public static MicrometerDecisionMetrics global() {
        return new MicrometerDecisionMetrics(Metrics.globalRegistry);
    }

    @Override
    public void recorded(Evaluation evaluation, long decisionNanos) {
        for (RuleDecision decision : evaluation.outcomes()) {
            meters(decision.rule().id()).decisions(Outcome.of(decision)).increment();
        }
        decisionTime.record(decisionNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void storeFailed(String ruleId) {
        meters(ruleId).decisions(Outcome.STORE_ERROR).increment();
    }

    @Override
    public void taken(String ruleId) {
        meters(ruleId).held().incrementAndGet();
    }

    @Override
    public void released(String ruleId) {
        meters(ruleId).held().decrementAndGet();
    }

    @Override
    public void waitStarted(String ruleId) {
        meters(ruleId).waits(Wait.STARTED).increment();
    }

    @Override
    public void waitGranted(String ruleId) {
        meters(ruleId).waits(Wait.GRANTED).increment();
    }

    @Override
    public void waitTimedOut(String ruleId) {
        meters(ruleId).waits(Wait.TIMED_OUT).increment();
    }

    @Override
    public void reserved(String ruleId, String unit, long estimate) {
        CostMeters meters = meters(ruleId).costs(unit);
        meters.reserved.increment(estimate);
        meters.outstanding.addAndGet(estimate);
    }

    @Override
    public void settled(String ruleId, String unit, long estimate, long actual) {
        CostMeters meters = meters(ruleId).costs(unit);
        meters.outstanding.addAndGet(-estimate);
        meters.settled.increment(actual);
        if (actual > estimate) {
            meters.debt.increment(actual - estimate);
        }
    }

    /** The meters of rule {@code ruleId}: a plain read once they exist, so that a decision allocates nothing here. */
    private RuleMeters meters(String ruleId) {
        RuleMeters meters = rules.get(ruleId);
        return meters != null ? meters : rules.computeIfAbsent(ruleId, RuleMeters::new);
    }

    /** The waits for a concurrency permit that are counted, each its own counter. */
    private enum Wait {
        STARTED(WAITS_STARTED, "Requests over a concurrency limit that began waiting for a permit"),
        GRANTED(WAITS_GRANTED, "Requests that waited for a concurrency permit and got it"),
        TIMED_OUT(WAITS_TIMED_OUT, "Requests that waited for a concurrency permit in vain and were rejected");

        private final String meterName;
        private final String description;

        Wait(String meterName, String description) {
            this.meterName = meterName;
            this.description = description;
        }
    }

    /** One rule's meters of its costs in one unit, tagged {@code rule} and {@code unit}. */
    private record CostMeters(Counter reserved, Counter settled, Counter debt, AtomicLong outstanding) {
    }

    /**
     * One rule's meters, tagged {@code rule}, each registered in the registry on its first use and kept here, so that
     * only the meters a rule uses appear. A counter built by two racing threads is one meter: the registry answers the
     * same one for the same name and tags. A rule new or reloaded under a new id gets its own on its first decision.
     */
    private final class RuleMeters {

        private final String ruleId;
        /** The decision counters, by outcome ordinal. */
        private final @Nullable Counter[] decisions = new Counter[Outcome.values().length];
        /** The wait counters, by {@link Wait} ordinal. */
        private final @Nullable Counter[] waits = new Counter[Wait.values().length];
        /** The permits held, published as a gauge once the first is taken or released. */
        private final AtomicLong held = new AtomicLong();
        private volatile boolean heldPublished;
        /** Per unit, the cost meters. */
        private final Map<String, CostMeters> costs = new ConcurrentHashMap<>();

        RuleMeters(String ruleId) {
            this.ruleId = ruleId;
            FunctionCounter.builder(SYNC_OVER_ADMITTED, MicrometerDecisionMetrics.this,
                            metrics -> metrics.watched.get().cluster().synchronised().overAdmitted()
                                    .getOrDefault(ruleId, 0L))
                    .description("Permits of this node's synchronised hits that the owners found beyond the limit")
                    .tag("rule", ruleId)
                    .register(registry);
        }

        Counter decisions(Outcome outcome) {
            @Nullable Counter counter = decisions[outcome.ordinal()];
            if (counter == null) {
                counter = Counter.builder(DECISIONS)
                        .description("Requests decided by a rate-limit rule, by outcome")
                        .tag("rule", ruleId)
                        .tag("outcome", outcome.tag())
                        .register(registry);
                decisions[outcome.ordinal()] = counter;
            }
            return counter;
        }

        Counter waits(Wait wait) {
            @Nullable Counter counter = waits[wait.ordinal()];
            if (counter == null) {
                counter = Counter.builder(wait.meterName).description(wait.description).tag("rule", ruleId)
                        .register(registry);
                waits[wait.ordinal()] = counter;
            }
            return counter;
        }

        AtomicLong held() {
            if (!heldPublished) {
                // Racing threads register the one gauge of the same name and tags on this same AtomicLong.
                Gauge.builder(PERMITS_HELD, held, AtomicLong::doubleValue)
                        .description("Concurrency permits of a rule this node holds now")
                        .tag("rule", ruleId)
                        .strongReference(true)
                        .register(registry);
                heldPublished = true;
            }
            return held;
        }

        CostMeters costs(String unit) {
            CostMeters meters = costs.get(unit);
            return meters != null ? meters : costs.computeIfAbsent(unit, this::newCostMeters);
        }

        private CostMeters newCostMeters(String unit) {
            AtomicLong outstanding = new AtomicLong();
            Gauge.builder(COST_OUTSTANDING, outstanding, AtomicLong::doubleValue)
                    .description("Units a rule's requests reserved on this node and have not settled yet")
                    .tags("rule", ruleId, "unit", unit)
                    .strongReference(true)
                    .register(registry);
            return new CostMeters(costCounter(COST_RESERVED, "Units a rule's requests reserved as estimates", unit),
                    costCounter(COST_SETTLED, "Units a rule's requests settled at, their actual cost", unit),
                    costCounter(COST_DEBT, "Units a rule's requests cost beyond their estimates, charged as debt",
                            unit), outstanding);
        }

        private Counter costCounter(String name, String description, String unit) {
            return Counter.builder(name).description(description).tags("rule", ruleId, "unit", unit)
                    .register(registry);
        }
    }

    /**
     * Meters of the store's health, tagged with its mode: the gauge {@code sluice.store.members}; the calls of the
     * last minute that the failure policy decided, the gauges {@code sluice.store.failed},
     * {@code sluice.store.timed.out} and {@code sluice.store.shed}; for leasing, the counter
     * {@code sluice.store.lease.grants} and the gauge {@code sluice.store.lease.held}; for synchronised rules, the
     * gauges {@code sluice.store.sync.waiting} (permits) and {@code sluice.store.sync.lag} (seconds); the counter
     * {@code sluice.store.incompatible.members} of the members found unable to run the store's code, and the counter
     * {@code sluice.store.permits.freed} of the concurrency permits freed because their node was gone. They hold
     * {@code health} (and so the store) until the returned watch is closed, which removes them from the registry. The
     * latest watch of a mode publishes: it replaces the meters of an earlier one (an application redeployed before the
     * old one stopped), whose closing then leaves the new meters alone.
     */
    @Override
    public Watch watch(Supplier<StoreHealth> health) {
        watched = health;
        String mode = health.get().mode();
        List<Meter> meters = List.of(
                gauge("members", "Cluster members the store sees", health, StoreHealth::membersSeen, mode),
                gauge("failed", "Store calls that failed in the last minute", health, now -> now.lastMinute().failed(),
                        mode),
                gauge("timed.out", "Store calls that timed out in the last minute", health,
                        now -> now.lastMinute().timedOut(), mode),
                gauge("shed", "Store calls shed (too many in flight) in the last minute", health,
                        now -> now.lastMinute().shed(), mode),
                // Holds health weakly (Micrometer has no other choice for it): the watch holds it strongly.
                FunctionCounter.builder(replacing("lease.grants", mode), health,
                                supplier -> supplier.get().cluster().leasing().grants())
                        .description("Decisions granted from leased slices on this node, with no cluster call")
                        .tag("mode", mode)
                        .register(registry),
                gauge("lease.held", "Permits this node holds unused in leased slices (lost if it dies)", health,
                        now -> now.cluster().leasing().permitsHeld(), mode),
                gauge("sync.waiting", "Permits admitted on synchronised keys that their owners have not yet counted",
                        health, now -> now.cluster().synchronised().hitsWaiting(), mode),
                gauge("sync.lag", "Seconds the oldest synchronised hit not yet counted by its owner has waited",
                        health, now -> now.cluster().synchronised().lagNanos() / 1e9, mode),
                FunctionCounter.builder(replacing("incompatible.members", mode), health,
                                supplier -> supplier.get().cluster().incompatibleMembersSeen())
                        .description("Cluster members found unable to run the store's code since it started")
                        .tag("mode", mode)
                        .register(registry),
                gauge("map.warnings", "Warnings about how the cluster keeps the store's maps (their texts in health)",
                        health, now -> now.cluster().mapWarnings().size(), mode),
                FunctionCounter.builder(replacing("permits.freed", mode), health,
                                supplier -> supplier.get().cluster().permitsFreed())
                        .description("Concurrency permits this node freed because the node holding them was gone")
                        .tag("mode", mode)
                        .register(registry));
        return () -> {
            if (watched == health) {
                watched = () -> StoreHealth.LOCAL;
            }
            for (Meter meter : meters) {
                if (registry.find(meter.getId().getName()).tags(meter.getId().getTags()).meter() == meter) {
                    registry.remove(meter);
                }
            }
            Reference.reachabilityFence(health);
        };
    }

    private Gauge gauge(String name, String description, Supplier<StoreHealth> health,
                        ToDoubleFunction<StoreHealth> figure, String mode) {
        // Held strongly, not weakly as Micrometer's default: the watch, not the garbage collector, ends the gauge.
        return Gauge.builder(replacing(name, mode), health, supplier -> figure.applyAsDouble(supplier.get()))
                .description(description)
                .tag("mode", mode)
                .strongReference(true)
                .register(registry);
    }

    /** The full name of the store's meter {@code name}, once an earlier watch's meter of that name and mode is gone. */
    private String replacing(String name, String mode) {
        String meterName = STORE + "." + name;
        Meter earlier = registry.find(meterName).tag("mode", mode).meter();
        if (earlier != null) {
            registry.remove(earlier);
        }
        return meterName;
    }
}
