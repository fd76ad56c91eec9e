package dev.sluice.hazelcast;

import org.junit.jupiter.api.Tag;

/** The store contract on three members with member batching on: most keys travel in batches to their owner. */
@Tag("cluster")
class ThreeMemberBatchingContractTest extends ClusterContract {
    ThreeMemberBatchingContractTest() {
        super(3, true);
    }
}
