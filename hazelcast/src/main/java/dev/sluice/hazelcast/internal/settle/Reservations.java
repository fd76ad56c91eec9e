package dev.sluice.hazelcast.internal.settle;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.calls.ProcessorCalls;
import dev.sluice.hazelcast.internal.wire.CounterCommand;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.DecisionResult;
import dev.sluice.hazelcast.internal.wire.PeekProcessor;
import dev.sluice.store.Counted;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The Hazelcast store's reservations of a cost known when a request ends: one call to the key's owner to count the
 * estimate ({@link CounterCommand#count}, answering the owner's time of the count, which is the reservation's id), one
 * to settle it ({@link CounterCommand#settle}; a settle at the estimate only peeks, {@link PeekProcessor}); a
 * reservation given back is the all-or-nothing undo ({@link CounterCommand#undo}). Leased and synchronised policies
 * are reserved and settled exactly on the owner too, as the store decides every metered policy (not from slices or
 * views: neither records when a grant was counted, so a give-back there could not be bounded). Thread-safe. See
 * {@code docs/design/costs.md}.
 */
public final class Reservations {

    private final HazelcastInstance instance;
    private final String mapName;
    /** Got on first use: a client that has not yet connected cannot make the map's proxy. */
    private volatile @Nullable ProcessorCalls<CounterState> calls;

    /** Reservations in map {@code mapName}. */
    public Reservations(HazelcastInstance instance, String mapName) {
        this.instance = instance;
        this.mapName = mapName;
    }

    /** Counts {@code estimate} on the key's owner; see the class comment. */
    public CompletionStage<Counted> estimateAsync(String key, Policy policy, long estimate, long maxDelayNanos) {
        return calls().submit(key, CounterCommand.count(policy, estimate, maxDelayNanos)).thenApply(answer -> {
            Decision decision = answer.decision();
            if (!decision.allowed()) {
                return Counted.kept(decision);
            }
            long countedAt = answer.countedAtNanos();
            return Counted.reservation(decision, () -> calls().submitOnce(key, CounterCommand.undo(policy, estimate,
                            countedAt)).thenApply(DecisionResult::decision),
                    actual -> settle(key, policy, estimate, actual, countedAt), () -> Long.toString(countedAt));
        });
    }

    /**
     * Settles the reservation {@code reservation} (the owner's time of its count, as {@link #estimateAsync} made its
     * id) on the key's owner.
     *
     * @throws IllegalArgumentException when {@code reservation} is no such id
     */
    public CompletionStage<Decision> settleAsync(String key, Policy policy, long estimate, long actual,
                                                 String reservation) {
        long countedAt;
        try {
            countedAt = Long.parseLong(reservation);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a reservation id of a Hazelcast store: " + reservation, e);
        }
        return settle(key, policy, estimate, actual, countedAt);
    }

    /** One call on the owner settling a reservation counted at {@code countedAt}. */
    private CompletionStage<Decision> settle(String key, Policy policy, long estimate, long actual, long countedAt) {
        if (estimate < 1 || actual < 0) {
            throw new IllegalArgumentException("a settle needs an estimate of at least 1 and an actual cost of 0 or"
                    + " more, got estimate " + estimate + " and actual cost " + actual);
        }
        if (actual == estimate) {
            return calls().submit(key, new PeekProcessor(policy, 0)).thenApply(DecisionResult::decision);
        }
        CounterCommand<DecisionResult> settle = CounterCommand.settle(policy, estimate, actual, countedAt);
        // Sent again, a settle that gives back would give twice; one that charges more would only charge twice.
        return (actual < estimate ? calls().submitOnce(key, settle) : calls().submit(key, settle))
                .thenApply(DecisionResult::decision);
    }

    private ProcessorCalls<CounterState> calls() {
        ProcessorCalls<CounterState> known = calls;
        if (known == null) {
            known = new ProcessorCalls<>(instance.getMap(mapName));
            calls = known;
        }
        return known;
    }
}
