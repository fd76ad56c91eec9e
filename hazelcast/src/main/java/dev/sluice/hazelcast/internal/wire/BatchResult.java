package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Policy;
import java.io.IOException;
import java.util.List;

/**
 * Carries the decisions of a {@link BatchApplyProcessor} back to the caller, in the order of its requests. A decision's
 * limit travels as its index in the request's policy, not its name: the caller has the policy, and a batch of a hot key
 * would otherwise repeat the same name in every decision.
 */
public final class BatchResult implements IdentifiedDataSerializable {

    /** Bytes each decision takes on the wire: allowed, six longs and the limit's index. */
    private static final int DECISION_BYTES = 1 + 6 * Long.BYTES + 1;

    private Decision[] decisions;
    private int[] limitIndexes;

    BatchResult() {
    }

    public BatchResult(Decision[] decisions, int[] limitIndexes) {
        this.decisions = decisions;
        this.limitIndexes = limitIndexes;
    }

    /** The index in {@code policy} of the limit that {@code decision} names. */
    static int limitIndex(Policy policy, Decision decision) {
        List<Limit> limits = policy.limits();
        for (int i = 0; i < limits.size(); i++) {
            if (limits.get(i).name().equals(decision.limitName())) {
                return i;
            }
        }
        throw new IllegalStateException("a decision names a limit its policy does not hold");
    }

    public int size() {
        return decisions.length;
    }

    /** The decision of request {@code i}, whose policy was {@code policy}. */
    public Decision decision(int i, Policy policy) {
        return WireFormat.named(decisions[i], policy.limits().get(limitIndexes[i]).name());
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        out.writeInt(decisions.length);
        for (int i = 0; i < decisions.length; i++) {
            WireFormat.writeDecision(out, decisions[i]);
            out.writeByte(limitIndexes[i]);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "batch result");
        int count = WireFormat.readCount(in, "decisions", WireFormat.MAX_BATCH_REQUESTS, DECISION_BYTES);
        decisions = new Decision[count];
        limitIndexes = new int[count];
        for (int i = 0; i < count; i++) {
            // The limit's name is the caller's to fill in (decision(i, policy)); until then it is left empty.
            decisions[i] = WireFormat.readDecision(in);
            int index = in.readByte() & 0xff;
            if (index >= Policy.MAX_LIMITS) {
                throw new IOException("decision " + i + " names limit " + index + "; a policy holds at most "
                        + Policy.MAX_LIMITS);
            }
            limitIndexes[i] = index;
        }
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.BATCH_RESULT;
    }
}
