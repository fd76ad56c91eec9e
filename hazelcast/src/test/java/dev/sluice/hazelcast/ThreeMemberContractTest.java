package dev.sluice.hazelcast;

import org.junit.jupiter.api.Tag;

/** The store contract on three members, so most keys are owned by a member other than the caller. */
@Tag("cluster")
class ThreeMemberContractTest extends ClusterContract {
    ThreeMemberContractTest() {
        super(3);
    }
}
