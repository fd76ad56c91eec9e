package dev.sluice.hazelcast.internal.wire;

import dev.sluice.algorithm.Policy;

/** One decision a {@link BatchApplyProcessor} carries: its policy, cost and maximum delay (nanoseconds). */
public interface BatchRequest {

    Policy policy();

    long cost();

    long maxDelayNanos();
}
