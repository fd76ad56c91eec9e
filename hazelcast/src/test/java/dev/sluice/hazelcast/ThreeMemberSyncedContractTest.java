package dev.sluice.hazelcast;

import org.junit.jupiter.api.Tag;

/** The store contract on three members with every policy synchronised: one deciding node is exact. */
@Tag("cluster")
class ThreeMemberSyncedContractTest extends ClusterContract {
    ThreeMemberSyncedContractTest() {
        super(3, true);
    }
}
