package dev.sluice.hazelcast;

/** The store contract for the compare-and-set store on a single member. */
class CompareAndSetOneMemberContractTest extends CompareAndSetContract {
    CompareAndSetOneMemberContractTest() {
        super(1);
    }
}
