package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.map.IMap;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.engine.RuleOverrides;
import dev.sluice.engine.RuleSet;
import dev.sluice.hazelcast.internal.cluster.KeySecret;
import dev.sluice.rules.KeySpec;
import dev.sluice.rules.Rule;
import dev.sluice.rules.match.ClientAddresses;
import dev.sluice.rules.match.TestRequest;
import dev.sluice.store.CounterStore;
import dev.sluice.store.LimitOverride;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Overrides on two members in this JVM (issue 27): one set, changed or removed through one member holds on the other
 * once its copy has it (an entry listener, and a re-read every half second), counted by the requests each member
 * admits. The waits are for the state, bounded; expiry runs on a manual clock shared by both members.
 */
@Tag("cluster")
class OverridesClusterTest {

    private static final Duration PROPAGATION_BOUND = Duration.ofSeconds(30);

    private final ManualTimeSource time = new ManualTimeSource(TimeSource.system().nanos());
    private final List<HazelcastCounterStore> members = ClusterSupport.startCluster(2, time);
    private final RuleSet rules = RuleSet.of(List.of(Rule.builder("api").paths("/api")
            .key(KeySpec.of(KeySpec.Kind.HEADER, "X-Key"))
            .policy(Policy.of(Algorithm.FIXED_WINDOW, Limit.of(3, Duration.ofMinutes(1)))).build()),
            ClientAddresses.direct());

    @AfterEach
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    private RuleOverrides overridesOf(int member) {
        return new RuleOverrides(() -> rules, members.get(member));
    }

    private static LimitOverride.Builder forKey(String key) {
        return LimitOverride.forKey("api", key).lasting(Duration.ofMinutes(10)).reason("ticket 7").setBy("alice");
    }

    private boolean admitted(int member, String key) {
        return rules.evaluate(TestRequest.get("/api").header("X-Key", key), members.get(member)).allowed();
    }

    /** Requests admitted out of {@code attempts}, sent alternately through both members. */
    private int admittedAcrossBoth(String key, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += admitted(i % 2, key) ? 1 : 0;
        }
        return admitted;
    }

    private static void awaitOverride(CounterStore member, String key, boolean present) {
        ClusterSupport.await(() -> member.services().overrides().active().find("api", key).isPresent() == present,
                PROPAGATION_BOUND, "the override of " + key + (present ? " to arrive" : " to leave"));
    }

    @Test
    void set_blockedOnOneMember_admitsNothingOnTheOther() {
        overridesOf(0).set(forKey("k").blocked());

        awaitOverride(members.get(1), "k", true);

        int admitted = 0;
        for (int i = 0; i < 10; i++) {
            admitted += admitted(1, "k") ? 1 : 0;
        }
        assertThat(admitted).isZero();
        assertThat(admittedAcrossBoth("other", 10)).isEqualTo(3);
        assertThat(members.get(1).services().overrides().list()).singleElement()
                .satisfies(o -> assertThat(o.setBy()).isEqualTo("alice"));
    }

    @Test
    void set_raisedLimitOnOneMember_admitsExactlyTheNewLimitAcrossBoth() {
        overridesOf(1).set(forKey("k").limits(Limit.of(10, Duration.ofMinutes(1))));

        awaitOverride(members.get(0), "k", true);

        assertThat(admittedAcrossBoth("k", 30)).isEqualTo(10);
        assertThat(admittedAcrossBoth("other", 30)).isEqualTo(3);
    }

    @Test
    void remove_onTheOtherMember_restoresTheRulesOwnLimitOnBoth() {
        overridesOf(0).set(forKey("k").exempt());
        awaitOverride(members.get(1), "k", true);
        assertThat(admittedAcrossBoth("k", 10)).isEqualTo(10);

        assertThat(overridesOf(1).remove(LimitOverride.Target.key("api", "k"), "bob")).isPresent();

        awaitOverride(members.get(0), "k", false);
        assertThat(admittedAcrossBoth("k", 10)).isEqualTo(3);
    }

    @Test
    void evaluate_afterExpiry_countsUnderTheRulesOwnLimitOnBoth() {
        overridesOf(0).set(LimitOverride.forRule("api").limits(Limit.of(1, Duration.ofMinutes(1)))
                .lasting(Duration.ofMinutes(5)).reason("incident").setBy("alice"));
        awaitOverride(members.get(1), "k", true);
        assertThat(admittedAcrossBoth("k", 10)).isEqualTo(1);

        time.advance(Duration.ofMinutes(5));

        assertThat(members.get(1).services().overrides().active().find("api",
                "k")).as("checked at decision time").isEmpty();
        assertThat(admittedAcrossBoth("k", 10)).isEqualTo(3);
    }

    @Test
    void overrides_memberCutOffFromTheCluster_keepsItsLastCopyAndRefusesChanges() throws Exception {
        overridesOf(0).set(forKey("k").blocked());
        ClusterSupport.await(() -> !admitted(1, "k"), PROPAGATION_BOUND, "the block on member 1");

        members.get(1).instance().getLifecycleService().terminate();
        // Three of the copy's half-second re-reads, each failing now.
        Thread.sleep(1_500);

        assertThat(members.get(1).services().overrides().active().find("api", "k")).isPresent();
        assertThat(admitted(1, "k")).as("still blocked, with no store call").isFalse();
        assertThatThrownBy(() -> overridesOf(1).set(forKey("other").blocked())).isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> overridesOf(1).remove(LimitOverride.Target.key("api", "k"), "bob"))
                .isInstanceOf(RuntimeException.class);
        assertThat(members.get(1).services().overrides().active().find("api", "k")).isPresent();
    }

    @Test
    void refresh_sealedEntryWrittenStraightIntoTheMap_arrivesOnBothMembers() {
        LimitOverride written = forKey("k").blocked().build(members.get(0).services().overrides().now());
        // Straight into the map, as another instance of the cluster writes it: no set() on any member's copy.
        KeySecret secret = StoreOptions.defaults().keySecret();
        String entry = "api|" + secret.hash("k");
        overridesMap().set(entry, secret.seal(entry, written.toJson()));

        awaitOverride(members.get(0), "k", true);
        awaitOverride(members.get(1), "k", true);
        assertThat(members.get(1).services().overrides().list()).containsExactly(written);
    }

    /**
     * What anyone who reaches the cluster can write: an override in plain JSON, and one sealed with another secret.
     * Neither is applied; a real one set afterwards arrives (so the copy has read the map since), and the key keeps
     * the rule's limit.
     */
    @Test
    void refresh_entriesWrittenWithoutTheKeySecret_areNotApplied() {
        LimitOverride exempt = forKey("k").exempt().build(members.get(0).services().overrides().now());
        overridesMap().set("api|k", exempt.toJson());
        KeySecret other = KeySecret.configured("not this cluster's secret");
        String entry = "api|" + other.hash("k");
        overridesMap().set(entry, other.seal(entry, exempt.toJson()));

        overridesOf(0).set(forKey("marker").blocked());
        awaitOverride(members.get(1), "marker", true);

        assertThat(members.get(1).services().overrides().active().find("api", "k")).isEmpty();
        assertThat(admittedAcrossBoth("k", 10)).isEqualTo(3);
        assertThat(overridesMap().keySet()).as("no key in clear but the forger's own").noneMatch(key ->
                key.contains("marker"));
    }

    private IMap<String, String> overridesMap() {
        return members.get(0).instance().getMap(HazelcastCounterStore.DEFAULT_MAP_NAME
                + HazelcastCounterStore.OVERRIDES_MAP_SUFFIX);
    }
}
