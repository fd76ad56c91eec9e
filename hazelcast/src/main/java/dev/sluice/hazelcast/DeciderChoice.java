package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.TimeSource;
import dev.sluice.hazelcast.internal.calls.ProcessorDecider;
import dev.sluice.hazelcast.internal.cluster.MemberCompatibility;
import dev.sluice.hazelcast.internal.cluster.MembershipWatch;
import dev.sluice.hazelcast.internal.wire.MemberClock;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Who decides for a {@link HazelcastCounterStore}: the members' processors while every member can run them, else what
 * {@link StoreOptions#onIncompatibleMembers()} says (a {@link CompareAndSetCounterStore}, or refusing every call), back
 * to the processors once the last member that cannot has left. Probes the members when the store starts and when a
 * client reconnects, and checks every member that joins; says each change once. Thread-safe.
 */
final class DeciderChoice {

    /** How long a compatibility probe waits for the members' answer. */
    private static final Duration PROBE_WAIT = Duration.ofSeconds(5);

    private final HazelcastInstance instance;
    private final StoreOptions options;
    private final ProcessorDecider processors;
    private final MembershipWatch membership;
    private final System.Logger log;
    /** {@link #processors}, a {@link CompareAndSetCounterStore}, or {@link Refusing}. */
    private volatile CounterStore decider;

    /** @param log where changes are said: the store's logger */
    DeciderChoice(HazelcastInstance instance, StoreOptions options, ProcessorDecider processors, System.Logger log) {
        this.log = log;
        this.instance = instance;
        this.options = options;
        this.processors = processors;
        this.decider = processors;
        this.membership = new MembershipWatch(instance, this::membersChanged);
    }

    /** Who decides now. */
    CounterStore current() {
        return decider;
    }

    /** Whether the members' processors decide now. */
    boolean processorsDecide() {
        return decider == processors;
    }

    /** The store's mode in its health: {@code connection}, and how it decides when not by the processors. */
    String mode(String connection) {
        CounterStore now = decider;
        return now == processors ? connection
                : now instanceof CompareAndSetCounterStore ? connection + " compare-and-set"
                : connection + " refused: incompatible members";
    }

    /** The members found unable to run Sluice's processors since the start, each counted once. */
    long incompatibleSeen() {
        return membership.incompatibleSeen();
    }

    /**
     * Probes the members now; {@code starting}: when they cannot run Sluice and the options say refuse, throws
     * {@link IllegalStateException} saying why (the store does not start).
     */
    synchronized void probe(boolean starting) {
        checked(MemberCompatibility.probe(processors::map, PROBE_WAIT), starting);
    }

    /** Checks each member that joins from now on (after the start's probe, which may refuse to start). */
    void follow() {
        membership.following();
    }

    void stop() {
        membership.stop();
    }

    /**
     * What the membership watch found: a member that cannot run Sluice (said at ERROR even when the store already
     * decides elsewhere), or that the last such member left.
     */
    private synchronized void membersChanged(MemberCompatibility.Result result) {
        if (result.verdict() == MemberCompatibility.Verdict.INCOMPATIBLE && decider != processors) {
            log.log(System.Logger.Level.ERROR, problem(result.cause()) + (decider instanceof CompareAndSetCounterStore
                    ? " Still deciding with compare-and-set writes." : " Every call still fails; the failure policy "
                    + "decides."));
            return;
        }
        checked(result, false);
    }

    private void checked(MemberCompatibility.Result result, boolean starting) {
        switch (result.verdict()) {
            case COMPATIBLE -> {
                // The probe reaches one member: one that joined without Sluice may still be there.
                if (decider != processors && !membership.anyIncompatible()) {
                    decider = processors;
                    // Not a MessageFormat pattern: it would eat the apostrophes.
                    log.log(System.Logger.Level.WARNING, "Sluice: the cluster's members run Sluice's entry processors"
                            + " again; decisions go to them (counting afresh in map '" + options.mapName() + "')");
                }
            }
            case UNKNOWN -> log.log(System.Logger.Level.DEBUG, "Sluice: members not probed ({0}); a client probes "
                    + "again on its next connection", result.cause());
            case INCOMPATIBLE -> incompatible(result.cause(), starting);
        }
    }

    private void incompatible(String cause, boolean starting) {
        if (decider != processors) {
            return; // already said, and already deciding as the options say
        }
        String problem = problem(cause);
        if (options.onIncompatibleMembers() == StoreOptions.OnIncompatibleMembers.COMPARE_AND_SET) {
            log.log(System.Logger.Level.ERROR, problem + " Deciding with compare-and-set writes in map '"
                    + options.compareAndSetMapName() + "' now.");
            // On the members' timeline when they were given one (tests, simulations), as the processors would be.
            TimeSource time = MemberClock.given(instance)
                    .orElseGet(() -> CompareAndSetCounterStore.clusterTime(instance));
            decider = new CompareAndSetCounterStore(instance, options.compareAndSetMapName(),
                    CompareAndSetCounterStore.DEFAULT_RETRY_TIMEOUT, time);
            return;
        }
        log.log(System.Logger.Level.ERROR, problem + (starting ? " The store does not start."
                : " Every call fails until they can; the failure policy decides."));
        decider = new Refusing();
        if (starting) {
            throw new IllegalStateException(problem);
        }
    }

    /** The ERROR's text for members that cannot run Sluice: the cause, and the two fixes. */
    private static String problem(String cause) {
        return "Sluice: the Hazelcast members cannot run Sluice's entry processors (" + cause + "). Put "
                + "dev.sluice:sluice-hazelcast and dev.sluice:sluice-core, of this application's version, on every "
                + "member's class path (the build's member bundle, hazelcast/target/sluice-member, holds them; "
                + "docs/cluster.md: Running with your own Hazelcast cluster), or set "
                + "StoreOptions.onIncompatibleMembers("
                + "COMPARE_AND_SET) (init-param hazelcast-incompatible-members=compare-and-set) to decide on the "
                + "callers instead.";
    }

    /**
     * The decider while the members cannot run Sluice's processors and the options say refuse: every command fails.
     */
    private static final class Refusing implements CounterStore {

        private static IllegalStateException refused() {
            return new IllegalStateException("Sluice: the Hazelcast members cannot run Sluice's entry processors; see"
                    + " the ERROR logged when this was found");
        }

        @Override
        public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
            return CompletableFuture.failedFuture(refused());
        }

        @Override
        public void close() {
            // Holds nothing.
        }
    }
}
