package dev.sluice.hazelcast.internal.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.Decision;
import java.io.IOException;

/** Carries a {@link Decision} from the member that made it back to the caller. */
public final class DecisionResult implements IdentifiedDataSerializable {

    private Decision decision;

    DecisionResult() {
    }

    public DecisionResult(Decision decision) {
        this.decision = decision;
    }

    public Decision decision() {
        return decision;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        WireFormat.writeVersion(out);
        WireFormat.writeNamedDecision(out, decision);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        WireFormat.readVersion(in, "decision result");
        decision = WireFormat.readNamedDecision(in);
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerHook.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.DECISION_RESULT;
    }
}
