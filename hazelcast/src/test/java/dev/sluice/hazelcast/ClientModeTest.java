package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import dev.sluice.store.LocalCounterStore;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A client of an existing cluster, and what its decisions do when the cluster goes away. */
@Tag("cluster")
class ClientModeTest {

    private static final Policy THREE_PER_MINUTE =
            Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(3, Duration.ofMinutes(1)));
    private static final Duration TIMEOUT = FailurePolicyStore.DEFAULT_TIMEOUT;
    /** Generous: a bound for "never held much longer than the timeout" that a loaded machine still meets. */
    private static final Duration MARGIN = Duration.ofSeconds(2);

    private final ManualTimeSource time = new ManualTimeSource();
    private List<HazelcastCounterStore> members;
    private HazelcastCounterStore client;

    @BeforeEach
    void startClusterAndClient() {
        members = ClusterSupport.startCluster(1, time);
        client = HazelcastCounterStore.connectClient(ClusterSupport.client(members.get(0).instance().getConfig()
                .getClusterName(), ClusterSupport.address(members.get(0))).build());
    }

    @AfterEach
    void stopAll() {
        if (client != null) {
            client.close();
        }
        ClusterSupport.closeAll(members);
    }

    @Test
    void decide_throughClient_sharesTheMembersCounters() {
        members.get(0).execute("shared", Command.decide(THREE_PER_MINUTE, 2, 0));
        assertThat(client.execute("shared", Command.decide(THREE_PER_MINUTE, 1, 0)).remaining()).isZero();
        assertThat(client.execute("shared", Command.decide(THREE_PER_MINUTE, 1, 0)).allowed()).isFalse();
        assertThat(members.get(0).execute("shared", Command.peek(THREE_PER_MINUTE, 0)).remaining()).isZero();
    }

    @Test
    void decide_clusterDownWithRejectPolicy_rejectsWithinTheTimeout() {
        FailurePolicyStore store = FailurePolicyStore.rejecting(client, TIMEOUT);
        Decision decision = afterClusterLoss(store, s -> s.execute("k", Command.decide(THREE_PER_MINUTE, 1, 0)));
        assertThat(decision.allowed()).isFalse();
        assertThat(store.failures() + store.timeouts()).isPositive();
    }

    @Test
    void decide_clusterDownWithAllowPolicy_allowsWithinTheTimeout() {
        FailurePolicyStore store = FailurePolicyStore.allowing(client, TIMEOUT);
        Decision decision = afterClusterLoss(store, s -> s.execute("k", Command.decide(THREE_PER_MINUTE, 1, 0)));
        assertThat(decision.allowed()).isTrue();
        assertThat(store.failures() + store.timeouts()).isPositive();
    }

    @Test
    void decide_clusterDownWithFallback_countsLocallyWithinTheTimeout() {
        FailurePolicyStore store = FailurePolicyStore.fallingBackTo(client, TIMEOUT, new LocalCounterStore(time, 100));
        afterClusterLoss(store, s -> s.execute("k", Command.decide(THREE_PER_MINUTE, 1, 0)));
        assertThat(timed(() -> store.execute("k", Command.decide(THREE_PER_MINUTE, 1, 0))).remaining()).isEqualTo(1);
        assertThat(timed(() -> store.execute("k", Command.decide(THREE_PER_MINUTE, 1, 0))).remaining()).isZero();
        assertThat(timed(() -> store.execute("k", Command.decide(THREE_PER_MINUTE, 1, 0))).allowed()).isFalse();
        assertThat(store.failures() + store.timeouts()).isEqualTo(4);
    }

    @Test
    void decide_clusterGone_failsSayingTheClusterIsUnreachable() {
        members.get(0).close();
        // Until the client notices, a call fails as Hazelcast fails it; from then on, with Sluice's words.
        ClusterSupport.await(() -> refusal().contains("unreachable"), Duration.ofSeconds(30),
                "the client noticing its cluster is gone");

        assertThat(refusal()).isEqualTo("Sluice: the cluster is unreachable: the Hazelcast client is not connected to"
                + " any member");
    }

    /** The message of the client's refusal of a decision now; empty when it decides. */
    private String refusal() {
        try {
            client.execute("k", Command.decide(THREE_PER_MINUTE, 1, 0));
            return "";
        } catch (RuntimeException refused) {
            return String.valueOf(refused.getMessage());
        }
    }

    /** Shuts the cluster down, then makes one timed decision through {@code store}. */
    private Decision afterClusterLoss(FailurePolicyStore store, Function<CounterStore, Decision> decide) {
        members.get(0).close();
        return timed(() -> decide.apply(store));
    }

    private static Decision timed(Supplier<Decision> decision) {
        long start = System.nanoTime();
        Decision result = decision.get();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.println("decision with the cluster down took " + took.toMillis() + " ms");
        assertThat(took).isLessThan(TIMEOUT.plus(MARGIN));
        return result;
    }
}
