package dev.sluice.benchmarks;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializable;
import java.util.Map;

/**
 * The floor of a distributed decision: one {@code executeOnKey} that increments a {@code Long}, written and backed up
 * (by running again on the backup) on every call, with no algorithm, policy or result to carry. Public for Hazelcast,
 * which instantiates it on the member that runs it.
 */
public final class IncrementProcessor implements EntryProcessor<String, Long, Long>, DataSerializable {

    @Override
    public Long process(Map.Entry<String, Long> entry) {
        Long current = entry.getValue();
        long next = current == null ? 1 : current + 1;
        entry.setValue(next);
        return next;
    }

    @Override
    public void writeData(ObjectDataOutput out) {
    }

    @Override
    public void readData(ObjectDataInput in) {
    }
}
