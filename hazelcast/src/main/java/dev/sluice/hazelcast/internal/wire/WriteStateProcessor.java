package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.internal.Durations;
import dev.sluice.internal.state.Transition;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The backup of a {@link CounterCommand} or a {@link BatchApplyProcessor}: writes the state the primary computed,
 * with the same time to live. Typed by its primary's result, of which it returns none.
 */
public final class WriteStateProcessor<R>
        implements EntryProcessor<String, CounterState, R>, IdentifiedDataSerializable {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private CounterState state;
    private long ttlSeconds;

    WriteStateProcessor() {
    }

    public WriteStateProcessor(CounterState state, long ttlSeconds) {
        this.state = state;
        this.ttlSeconds = ttlSeconds;
    }

    /**
     * Stores {@code transition}'s state in {@code entry} with the time to live {@link #ttlSeconds}
     * gives, and returns the backup that writes the same.
     */
    static <R> WriteStateProcessor<R> stored(Map.Entry<String, CounterState> entry, Algorithm algorithm,
                                             Transition transition) {
        CounterState next = new CounterState(algorithm, transition.changedState());
        long ttlSeconds = ttlSeconds(transition.idleAfterNanos());
        ((ExtendedMapEntry<String, CounterState>) entry).setValue(next, ttlSeconds, TimeUnit.SECONDS);
        return new WriteStateProcessor<>(next, ttlSeconds);
    }

    /** Whole seconds, rounded up, plus one for Hazelcast's truncation of expiration times (see wire-format.md). */
    public static long ttlSeconds(long idleAfterNanos) {
        return Durations.ceilDiv(idleAfterNanos, NANOS_PER_SECOND) + 1;
    }

    @Override
    public @Nullable R process(Map.Entry<String, CounterState> entry) {
        ((ExtendedMapEntry<String, CounterState>) entry).setValue(state, ttlSeconds, TimeUnit.SECONDS);
        return null;
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, R> getBackupProcessor() {
        return null;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        state.writeData(out);
        out.writeLong(ttlSeconds);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "backup write");
        state = new CounterState();
        state.readData(in);
        ttlSeconds = in.readLong();
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.WRITE_STATE_PROCESSOR;
    }
}
