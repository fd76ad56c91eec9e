package dev.sluice.hazelcast;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.algorithm.Policy;
import dev.sluice.algorithm.Transition;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Counts a request made some time ago ({@link Policy#record}), on the member that owns the key. It carries the
 * request's age, not an instant: the caller measured the age on its clock, and the member places the request on its
 * own timeline, as every decision reads the member's time. Wire layout (version 1): as {@link ApplyProcessor}'s, its
 * maximum delay always 0, then the age in nanoseconds (long).
 */
final class RecordProcessor extends CountingProcessor {

    private long ageNanos;

    RecordProcessor() {
    }

    RecordProcessor(Policy policy, long cost, long ageNanos) {
        super(policy, cost, 0);
        this.ageNanos = ageNanos;
    }

    @Override
    Transition step(long @Nullable [][] state, long now) {
        return policy().record(state, now, cost(), ageNanos);
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        super.writeData(out);
        out.writeLong(ageNanos);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        super.readData(in);
        ageNanos = in.readLong();
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.RECORD_PROCESSOR;
    }
}
