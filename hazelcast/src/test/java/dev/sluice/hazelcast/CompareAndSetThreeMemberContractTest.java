package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The store contract for the compare-and-set store on three members, so most keys are owned by a member other than
 * the caller; and one hot key shared by callers on every member.
 */
@Tag("cluster")
class CompareAndSetThreeMemberContractTest extends CompareAndSetContract {

    private static final int THREADS_PER_MEMBER = 8;
    private static final int ATTEMPTS_PER_THREAD = 10;

    CompareAndSetThreeMemberContractTest() {
        super(3);
    }

    /** The test's clock never moves, so nothing refills: exactly the capacity may pass, whatever the algorithm. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void decide_eightThreadsOnEachOfThreeMembers_admitExactlyTheCapacity(Algorithm algorithm) throws Exception {
        Policy policy = Policy.of(algorithm, TEN_PER_MINUTE);
        List<CompareAndSetCounterStore> callers = new ArrayList<>();
        for (int member = 0; member < members.size(); member++) {
            callers.add(storeOn(member, time));
        }

        int total = ClusterSupport.admitted(callers, THREADS_PER_MEMBER, ATTEMPTS_PER_THREAD, "hot", policy,
                Long.MAX_VALUE);

        assertThat(total).as("admitted by %d threads on %d members x %d attempts", THREADS_PER_MEMBER,
                members.size(), ATTEMPTS_PER_THREAD).isEqualTo(10);
        assertThat(store.execute("hot", Command.peek(policy, 0)).remaining()).isZero();
    }
}
