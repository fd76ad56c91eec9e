package dev.sluice.hazelcast;

/** The store contract on three members, so most keys are owned by a member other than the caller. */
class ThreeMemberContractTest extends ClusterContract {
    ThreeMemberContractTest() {
        super(3);
    }
}
