package dev.sluice.hazelcast;

import org.junit.jupiter.api.Tag;

/** The store contract for the compare-and-set store on a single member. */
@Tag("cluster")
class CompareAndSetOneMemberContractTest extends CompareAndSetContract {
    CompareAndSetOneMemberContractTest() {
        super(1);
    }
}
