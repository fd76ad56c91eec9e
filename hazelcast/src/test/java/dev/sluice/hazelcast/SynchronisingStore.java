package dev.sluice.hazelcast;

import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
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

    /** The command on its policy synchronised; a command with no policy as it is. */
    @SuppressWarnings("unchecked") // each command rebuilt is of its own type
    private static <R> Command<R> synced(Command<R> command) {
        if (command instanceof Command.Decide c) {
            return (Command<R>) Command.decide(c.policy().synchronised(), c.cost(), c.maxDelayNanos());
        } else if (command instanceof Command.Count c) {
            return (Command<R>) Command.count(c.policy().synchronised(), c.cost(), c.maxDelayNanos());
        } else if (command instanceof Command.Estimate c) {
            return (Command<R>) Command.estimate(c.policy().synchronised(), c.cost(), c.maxDelayNanos());
        } else if (command instanceof Command.Settle c) {
            return (Command<R>) Command.settle(c.policy().synchronised(), c.estimate(), c.actual(), c.id());
        } else if (command instanceof Command.Peek c) {
            return (Command<R>) Command.peek(c.policy().synchronised(), c.cost());
        } else if (command instanceof Command.Record c) {
            return (Command<R>) Command.record(c.policy().synchronised(), c.cost(), c.ageNanos());
        } else if (command instanceof Command.Reserve c) {
            return (Command<R>) Command.reserve(c.policy().synchronised(), c.cost(), c.maxWaitNanos());
        }
        return command;
    }

    /** Executes on the synchronised policy; a command that counts flushes this node's hits before it answers. */
    @Override
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        CompletionStage<R> answer = cluster.executeAsync(key, synced(command));
        return command instanceof Command.Peek ? answer : answer.thenApplyAsync(done -> {
            cluster.syncs().flush();
            return done;
        });
    }

    @Override
    public void close() {
        cluster.close();
    }
}
