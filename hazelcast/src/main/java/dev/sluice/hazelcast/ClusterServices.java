package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.internal.calls.ProcessorDecider;
import dev.sluice.hazelcast.internal.calls.Slices;
import dev.sluice.hazelcast.internal.cluster.KeySecret;
import dev.sluice.hazelcast.internal.overrides.ClusterOverrides;
import dev.sluice.hazelcast.internal.permits.PermitCalls;
import dev.sluice.hazelcast.internal.sync.SyncedKeys;
import dev.sluice.metrics.DecisionMetrics;
import dev.sluice.store.CounterKeys;
import dev.sluice.store.LimitOverrides;
import dev.sluice.store.SharedEntries;
import dev.sluice.store.StoreHealth;
import dev.sluice.store.StoreServices;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * What a {@link HazelcastCounterStore} keeps besides counters: overrides and shared entries in maps of the cluster
 * (sealed with the key secret: no key in clear, no Sluice class travels), and its health. Thread-safe.
 */
final class ClusterServices implements StoreServices {

    private final HazelcastInstance instance;
    private final String mapName;
    private final KeySecret keys;
    private final ClusterOverrides overrides;
    private final Supplier<String> mode;
    private final ProcessorDecider processors;
    private final PermitCalls permits;
    private final DeciderChoice deciders;
    private final MapWarnings mapWarnings;

    ClusterServices(HazelcastInstance instance, String mapName, KeySecret keys, ClusterOverrides overrides,
                    Supplier<String> mode, ProcessorDecider processors, PermitCalls permits, DeciderChoice deciders,
                    MapWarnings mapWarnings) {
        this.instance = instance;
        this.mapName = mapName;
        this.keys = keys;
        this.overrides = overrides;
        this.mode = mode;
        this.processors = processors;
        this.permits = permits;
        this.deciders = deciders;
        this.mapWarnings = mapWarnings;
    }

    /**
     * Overrides in the map {@code <counters map>.overrides} (JSON texts: no Sluice class travels), applied by every
     * instance of the cluster within {@link ClusterOverrides#REFRESH_INTERVAL} of a change; see
     * {@code docs/design/overrides.md}.
     */
    @Override
    public LimitOverrides overrides() {
        return overrides;
    }

    /**
     * Entries in the map {@code <counters map>.<name>} (strings only: no Sluice class travels), seen by every node of
     * the cluster; each entry expires after its time-to-live.
     */
    @Override
    public SharedEntries sharedEntries(String name) {
        return new ClusterSharedEntries(instance.getMap(mapName + "." + name), keys);
    }

    /**
     * The store's mode and the members its instance sees now: 0 once the instance has shut down, and for a client that
     * lost its cluster; the warnings about its maps' configuration. Failure counts are kept by a
     * {@link dev.sluice.store.FailurePolicyStore} in front of it.
     */
    @Override
    public StoreHealth health() {
        int members = 0;
        if (instance.getLifecycleService().isRunning()) {
            try {
                members = instance.getCluster().getMembers().size();
            } catch (RuntimeException e) {
                // A client between connections may refuse the question: it sees no member.
            }
        }
        Slices slices = processors.slices();
        SyncedKeys syncs = processors.syncs();
        return new StoreHealth(mode.get(), members, StoreHealth.Failures.NONE, new StoreHealth.Cluster(
                deciders.incompatibleSeen(), permits.freedFromGoneNodes(), mapWarnings.now(),
                new StoreHealth.Leasing(slices.grantedFromSlices(), slices.heldPermits()),
                new StoreHealth.Synchronised(syncs.hitsWaiting(), syncs.lagNanos(), byRule(syncs.overAdmitted()))));
    }

    /** Figures per counter-key scope ({@code <rule id>@<fingerprint>}) summed per rule id. */
    private static Map<String, Long> byRule(Map<String, Long> byScope) {
        Map<String, Long> byRule = new TreeMap<>();
        byScope.forEach((scope, figure) -> byRule.merge(CounterKeys.idOf(scope + "|")
                .orElse(DecisionMetrics.NOT_A_RULE), figure, Long::sum));
        return byRule;
    }
}
