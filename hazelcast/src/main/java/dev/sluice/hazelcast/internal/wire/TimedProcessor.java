package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.algorithm.Policy;
import java.io.IOException;

/**
 * A {@link CountingProcessor} that carries one time in nanoseconds after the shared layout, its maximum delay always
 * 0: a {@link RecordProcessor}'s age of the request, a {@link GiveBackProcessor}'s owner time of the slice.
 */
public abstract class TimedProcessor extends CountingProcessor {

    private long nanos;

    TimedProcessor() {
    }

    public TimedProcessor(Policy policy, long cost, long nanos) {
        super(policy, cost, 0);
        this.nanos = nanos;
    }

    long nanos() {
        return nanos;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        super.writeData(out);
        out.writeLong(nanos);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        super.readData(in);
        nanos = in.readLong();
    }
}
