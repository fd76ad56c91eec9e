package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.cluster.KeySecret;
import dev.sluice.hazelcast.internal.cluster.KeySecretCheck;
import dev.sluice.store.Command;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The key secret on real members in this JVM: instances that share it share each key's counter, exactly; an instance
 * with another one, member or client, does not start; and one that finds another secret's fingerprint in the cluster
 * when a member joins fails every call until it finds its own again.
 */
@Tag("cluster")
class KeySecretClusterTest {

    private static final String SECRET = "a secret every instance shares";
    private static final Policy TEN_PER_HOUR = Policy.of(Algorithm.TOKEN_BUCKET, Limit.of(10, Duration.ofHours(1)));
    private static final String FINGERPRINTS = HazelcastCounterStore.DEFAULT_MAP_NAME + KeySecretCheck.MAP_SUFFIX;

    /** Every member's clock, the joiners' too: a key that migrates to one is decided on the same timeline. */
    private final ManualTimeSource time = new ManualTimeSource();
    private final List<HazelcastCounterStore> stores = new ArrayList<>();
    private final List<HazelcastInstance> plainMembers = new ArrayList<>();

    @AfterEach
    void stopAll() {
        ClusterSupport.closeAll(stores);
        plainMembers.forEach(HazelcastInstance::shutdown);
    }

    private List<HazelcastCounterStore> cluster(int size, StoreOptions options) {
        List<HazelcastCounterStore> members = ClusterSupport.startCluster(size, options, time);
        stores.addAll(members);
        return members;
    }

    private static StoreOptions secret(String secret) {
        return StoreOptions.builder().keySecret(secret).build();
    }

    /** A member of {@code first}'s cluster, joining it, whose store counts with {@code options}. */
    private MemberOptions joining(HazelcastCounterStore first, StoreOptions options) {
        int port = first.instance().getCluster().getLocalMember().getAddress().getPort();
        return ClusterSupport.member(first.instance().getConfig().getClusterName(), ClusterSupport.freePort(),
                List.of(port)).store(options).timeSource(time).build();
    }

    @Test
    void decide_twoMembersWithTheSameSecret_admitExactlyTheLimitTogether() throws Exception {
        List<HazelcastCounterStore> members = cluster(2, secret(SECRET));

        assertThat(ClusterSupport.admitted(members, 4, 10, "api@0123456789ab|client-1", TEN_PER_HOUR, 0))
                .isEqualTo(10);
        assertThat(members.get(0).mapKey("api@0123456789ab|client-1")).as("the same map key on both")
                .isEqualTo(members.get(1).mapKey("api@0123456789ab|client-1"))
                .isNotEqualTo(StoreOptions.defaults().keySecret().mapKey("api@0123456789ab|client-1"));
    }

    @Test
    void startMember_anotherSecretThanTheClusters_isRefusedNamingTheSetting() {
        HazelcastCounterStore first = cluster(1, secret(SECRET)).get(0);

        assertThatThrownBy(() -> stores.add(HazelcastCounterStore.startMember(joining(first,
                secret("another secret of at least 16")))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("init-param hazelcast-key-secret, StoreOptions.Builder.keySecret(...)")
                .hasMessageContaining("each admit the whole limit")
                .hasMessageNotContaining(SECRET);
        assertThatThrownBy(() -> stores.add(HazelcastCounterStore.startMember(joining(first,
                StoreOptions.defaults()))))
                .as("none configured").isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("none is configured here");
        assertThat(first.execute("k", Command.decide(TEN_PER_HOUR, 1,
                0)).allowed()).as("the cluster's own instance counts on")
                .isTrue();
    }

    @Test
    void connectClient_anotherSecretThanTheClusters_isRefused() {
        HazelcastCounterStore member = cluster(1, secret(SECRET)).get(0);
        ClientOptions client = ClusterSupport.client(member.instance().getConfig().getClusterName(),
                ClusterSupport.address(member)).store(secret("another secret of at least 16")).build();

        assertThatThrownBy(() -> stores.add(HazelcastCounterStore.connectClient(client)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("hazelcast-key-secret");

        HazelcastCounterStore agreeing = HazelcastCounterStore.connectClient(ClusterSupport.client(
                member.instance().getConfig().getClusterName(), ClusterSupport.address(member))
                .store(secret(SECRET)).build());
        stores.add(agreeing);
        assertThat(agreeing.execute("k", Command.decide(TEN_PER_HOUR, 1, 0)).remaining()).isEqualTo(9);
    }

    /**
     * The fingerprint of another secret in the cluster, as two sides of a split brain formed with different secrets
     * would leave it when they merge: the store finds it when a member joins, and fails every call (its health says
     * why) until a later join finds its own fingerprint again.
     */
    @Test
    void memberJoins_clusterHoldsAnotherSecretsFingerprint_everyCallFailsUntilItIsTheSameAgain() {
        HazelcastCounterStore store = cluster(1, StoreOptions.defaults()).get(0);
        assertThat(store.execute("k", Command.decide(TEN_PER_HOUR, 1, 0)).allowed()).isTrue();
        String ours = StoreOptions.defaults().keySecret().fingerprint();
        store.instance().<String, String>getMap(FINGERPRINTS).put("fingerprint",
                KeySecret.configured("the other side's secret").fingerprint());

        plainMembers.add(Hazelcast.newHazelcastInstance(joining(store, StoreOptions.defaults()).toConfig()));

        ClusterSupport.await(() -> store.services().health().mode().endsWith("refused: key secret differs"),
                Duration.ofSeconds(30), "the store to find the other fingerprint");
        assertThatThrownBy(() -> store.execute("k", Command.decide(TEN_PER_HOUR, 1,
                0))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("key secret differs from the cluster's");

        store.instance().<String, String>getMap(FINGERPRINTS).put("fingerprint", ours);
        plainMembers.add(Hazelcast.newHazelcastInstance(joining(store, StoreOptions.defaults()).toConfig()));

        ClusterSupport.await(() -> store.services().health().mode().equals("hazelcast-member"), Duration.ofSeconds(30),
                "the store to find its own fingerprint again");
        assertThat(store.execute("k", Command.decide(TEN_PER_HOUR, 1, 0)).remaining()).isEqualTo(8);
    }
}
