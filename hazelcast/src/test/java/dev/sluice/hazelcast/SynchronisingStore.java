package dev.sluice.hazelcast;

import dev.sluice.Decision;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import java.util.concurrent.CompletionStage;

/**
 * A {@link HazelcastCounterStore} that synchronises every policy it is given ({@link Policy#synchronised()}) and,
 * after each call, sends this node's waiting hits and waits for their owners' answers: a test whose manual clock moves
 * between calls so knows every hit was counted at the time it was made, not later. For the store contract.
 */
final class SynchronisingStore implements CounterStore {

    private final HazelcastCounterStore cluster;

    SynchronisingStore(HazelcastCounterStore cluster) {
        this.cluster = cluster;
    }

    HazelcastCounterStore cluster() {
        return cluster;
    }

    private static Policy synced(Policy policy) {
        return policy.synchronised();
    }

    private <T> T flushed(T answer) {
        cluster.syncs().flush();
        return answer;
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        return flushed(cluster.apply(key, synced(policy), cost, maxDelayNanos));
    }

    @Override
    public CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        return cluster.applyAsync(key, synced(policy), cost, maxDelayNanos).thenApplyAsync(this::flushed);
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        return cluster.peek(key, synced(policy), cost);
    }

    @Override
    public CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        return cluster.peekAsync(key, synced(policy), cost);
    }

    @Override
    public Decision record(String key, Policy policy, long cost, long ageNanos) {
        return flushed(cluster.record(key, synced(policy), cost, ageNanos));
    }

    @Override
    public CompletionStage<Decision> recordAsync(String key, Policy policy, long cost, long ageNanos) {
        return cluster.recordAsync(key, synced(policy), cost, ageNanos).thenApplyAsync(this::flushed);
    }

    @Override
    public Decision reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        return flushed(cluster.reserve(key, synced(policy), cost, maxWaitNanos));
    }

    @Override
    public CompletionStage<Decision> reserveAsync(String key, Policy policy, long cost, long maxWaitNanos) {
        return cluster.reserveAsync(key, synced(policy), cost, maxWaitNanos).thenApplyAsync(this::flushed);
    }

    @Override
    public CompletionStage<Counted> estimateAsync(String key, Policy policy, long estimate, long maxDelayNanos) {
        return cluster.estimateAsync(key, synced(policy), estimate, maxDelayNanos).thenApplyAsync(this::flushed);
    }

    @Override
    public CompletionStage<Decision> settleAsync(String key, Policy policy, long estimate, long actual,
                                                 String reservation) {
        return cluster.settleAsync(key, synced(policy), estimate, actual, reservation).thenApplyAsync(this::flushed);
    }

    @Override
    public void reset(String key) {
        cluster.reset(key);
    }

    @Override
    public void close() {
        cluster.close();
    }
}
