package dev.sluice.hazelcast;

/** The store contract on a single embedded member. */
class OneMemberContractTest extends ClusterContract {
    OneMemberContractTest() {
        super(1);
    }
}
