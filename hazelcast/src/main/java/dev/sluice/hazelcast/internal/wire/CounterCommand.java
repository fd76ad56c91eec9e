package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.state.Lease;
import dev.sluice.internal.state.Transition;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One step of a policy on a key, run on the member that owns the key, at that member's time ({@link MemberClock}):
 * which step is its {@link Operation}, named by a code on the wire. The step and the entry's new state and time to
 * live are atomic (Hazelcast runs the processors of one partition one at a time); when the state changed, the backup
 * is a {@link WriteStateProcessor} that writes it, never a second run of the algorithm (its result could differ on
 * another member's clock). A count or a slice answers a {@link SliceResult}, which carries the owner's time that takes
 * it back; every other step a {@link DecisionResult}.
 *
 * <p>Wire layout: the version, the policy ({@link WireFormat#writePolicy}), the operation's code (byte), the cost, then
 * the operation's one or two arguments (longs); see {@code docs/design/wire-format.md}.
 *
 * @param <R> the answer the operation gives
 */
public final class CounterCommand<R> implements EntryProcessor<String, CounterState, R>, IdentifiedDataSerializable,
        HazelcastInstanceAware {

    /** What a command does to the key's state; the code is its fixed name on the wire. */
    enum Operation {
        /** {@link Policy#apply}: argument the maximum delay. */
        APPLY(1, false),
        /** {@link Policy#apply}, answering the owner's time of the count: argument the maximum delay. */
        COUNT(2, false),
        /** {@link Policy#record}: argument the request's age. */
        RECORD(3, false),
        /** {@link Policy#reserve}: argument the longest wait. */
        RESERVE(4, false),
        /** {@link Policy#undo}: argument the owner's time of the count taken back. */
        UNDO(5, false),
        /** {@link Policy#giveBack}, the cost being the permits: argument the owner's time of the slice. */
        GIVE_BACK(6, false),
        /** {@link Policy#settle}, the cost being the estimate: arguments the owner's time of the count, the actual. */
        SETTLE(7, true),
        /** {@link Policy#lease}: arguments the slice asked for and its lifetime. */
        TAKE_SLICE(8, true);

        private final int code;
        private final boolean twoArguments;

        Operation(int code, boolean twoArguments) {
            this.code = code;
            this.twoArguments = twoArguments;
        }

        static Operation ofCode(int code) throws IOException {
            for (Operation operation : values()) {
                if (operation.code == code) {
                    return operation;
                }
            }
            throw new IOException("no counter command has code " + code
                    + " in this Sluice release (a newer release may have added it)");
        }

        boolean answersSlice() {
            return this == COUNT || this == TAKE_SLICE;
        }
    }

    private Operation operation;
    private Policy policy;
    private long cost;
    private long argument;
    private long secondArgument;
    private transient HazelcastInstance member;
    private transient @Nullable WriteStateProcessor<R> backup;

    CounterCommand() {
    }

    private CounterCommand(Operation operation, Policy policy, long cost, long argument, long secondArgument) {
        this.operation = operation;
        this.policy = policy;
        this.cost = cost;
        this.argument = argument;
        this.secondArgument = secondArgument;
    }

    /** One decision. */
    public static CounterCommand<DecisionResult> apply(Policy policy, long cost, long maxDelayNanos) {
        return new CounterCommand<>(Operation.APPLY, policy, cost, maxDelayNanos, 0);
    }

    /** One decision, answered with the owner's time of the count: what {@link #undo} names to take it back. */
    public static CounterCommand<SliceResult> count(Policy policy, long cost, long maxDelayNanos) {
        return new CounterCommand<>(Operation.COUNT, policy, cost, maxDelayNanos, 0);
    }

    /** Counts a request decided elsewhere {@code ageNanos} ago, on the owner's timeline. */
    public static CounterCommand<DecisionResult> record(Policy policy, long cost, long ageNanos) {
        return new CounterCommand<>(Operation.RECORD, policy, cost, ageNanos, 0);
    }

    /** Reserves {@code cost} permits, waiting at most {@code maxWaitNanos} for them. */
    public static CounterCommand<DecisionResult> reserve(Policy policy, long cost, long maxWaitNanos) {
        return new CounterCommand<>(Operation.RESERVE, policy, cost, maxWaitNanos, 0);
    }

    /** Takes back a request that {@link #count} counted at the owner's time {@code countedAtNanos}. */
    public static CounterCommand<DecisionResult> undo(Policy policy, long cost, long countedAtNanos) {
        return new CounterCommand<>(Operation.UNDO, policy, cost, countedAtNanos, 0);
    }

    /** Gives back {@code permits} of a slice counted at the owner's time {@code countedAtNanos}. */
    public static CounterCommand<DecisionResult> giveBack(Policy policy, long permits, long countedAtNanos) {
        return new CounterCommand<>(Operation.GIVE_BACK, policy, permits, countedAtNanos, 0);
    }

    /** Settles at {@code actual} a reservation of {@code estimate} the owner counted at {@code countedAtNanos}. */
    public static CounterCommand<DecisionResult> settle(Policy policy, long estimate, long actual,
                                                        long countedAtNanos) {
        return new CounterCommand<>(Operation.SETTLE, policy, estimate, countedAtNanos, actual);
    }

    /**
     * Takes a slice of {@code wanted} permits valid {@code lifetimeNanos} for the node that sends it, or decides the
     * asking request (of {@code cost}) alone when the key has too few left; the validity is shortened by the owner
     * clock's resolution ({@link MemberClock#clockErrorOn}).
     */
    public static CounterCommand<SliceResult> takeSlice(Policy policy, long cost, long wanted, long lifetimeNanos) {
        return new CounterCommand<>(Operation.TAKE_SLICE, policy, cost, wanted, lifetimeNanos);
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    @Override
    public R process(Map.Entry<String, CounterState> entry) {
        CounterState current = entry.getValue();
        long @Nullable [][] state = current == null ? null : current.state();
        long now = MemberClock.nanosOn(member);
        return switch (operation) {
            case APPLY, COUNT -> stored(entry, policy.apply(state, now, cost, argument), 0, 0, now);
            case RECORD -> stored(entry, policy.record(state, now, cost, argument), 0, 0, now);
            case RESERVE -> stored(entry, policy.reserve(state, now, cost, argument), 0, 0, now);
            case UNDO -> stored(entry, policy.undo(state, now, cost, argument), 0, 0, now);
            case GIVE_BACK -> stored(entry, policy.giveBack(state, now, cost, argument), 0, 0, now);
            case SETTLE -> stored(entry, policy.settle(state, now, cost, secondArgument, argument), 0, 0, now);
            case TAKE_SLICE -> {
                Lease lease = policy.lease(state, now, cost, argument, secondArgument,
                        MemberClock.clockErrorOn(member));
                yield stored(entry, lease.transition(), lease.permits(), lease.validForNanos(), now);
            }
        };
    }

    /** Stores the state {@code transition} computed, with its backup, and answers as the operation does. */
    @SuppressWarnings("unchecked")
    private R stored(Map.Entry<String, CounterState> entry, Transition transition, long slicePermits,
                     long validForNanos, long now) {
        if (transition.changed()) {
            backup = WriteStateProcessor.stored(entry, policy.algorithm(), transition);
        }
        return (R) (operation.answersSlice() ? new SliceResult(transition.decision(), slicePermits, validForNanos, now)
                : new DecisionResult(transition.decision()));
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, R> getBackupProcessor() {
        return backup;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        WireFormat.writePolicy(out, policy);
        out.writeByte(operation.code);
        out.writeLong(cost);
        out.writeLong(argument);
        if (operation.twoArguments) {
            out.writeLong(secondArgument);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "counter command");
        policy = WireFormat.readPolicy(in);
        operation = Operation.ofCode(in.readByte());
        cost = in.readLong();
        argument = in.readLong();
        if (operation.twoArguments) {
            secondArgument = in.readLong();
        }
        if (operation == Operation.SETTLE && (cost < 1 || secondArgument < 0)) {
            throw new IOException("a settle of estimate " + cost + " at " + secondArgument);
        }
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.COUNTER_COMMAND;
    }
}
