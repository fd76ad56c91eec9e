package dev.sluice.hazelcast;

import org.junit.jupiter.api.Tag;

/** The store contract on a single embedded member. */
@Tag("cluster")
class OneMemberContractTest extends ClusterContract {
    OneMemberContractTest() {
        super(1);
    }
}
