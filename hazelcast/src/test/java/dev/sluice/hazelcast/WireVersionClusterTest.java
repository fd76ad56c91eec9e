package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.map.IMap;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.CounterCommand;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import dev.sluice.store.Command;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The wire format version between real members: a two-member cluster (TCP-IP on loopback, multicast off) whose
 * caller sends to the member that owns the key, so every processor, result, value and backup crosses the network.
 * Members of this release read versions 1 to {@link WireFormat#NEWEST_KNOWN}; bytes of the version after it, which
 * this release does not know, are refused by the owner with an error naming the version, before anything touches the
 * key's state.
 */
@Tag("cluster")
class WireVersionClusterTest {

    /** A version this release does not know. */
    private static final int UNKNOWN = WireFormat.NEWEST_KNOWN + 1;

    private static final Policy THREE_PER_MINUTE = Policy.of(Algorithm.TOKEN_BUCKET,
            Limit.of(3, Duration.ofMinutes(1)));

    private final ManualTimeSource time = new ManualTimeSource();
    private List<HazelcastCounterStore> members = List.of();
    private HazelcastCounterStore caller;
    private HazelcastCounterStore owner;
    private String key;

    @BeforeEach
    void startCluster() {
        members = ClusterSupport.startCluster(2, time);
        caller = members.get(0);
        owner = members.get(1);
        key = ClusterSupport.keyOwnedBy(owner, "wire-");
    }

    @AfterEach
    void stopCluster() {
        ClusterSupport.closeAll(members);
    }

    @Test
    void decide_version1AcrossMembers_decidesExactlyAndBacksUpTheState() {
        for (int i = 0; i < 3; i++) {
            assertThat(caller.execute(key, Command.decide(THREE_PER_MINUTE, 1, 0)).allowed()).isTrue();
        }
        assertThat(caller.execute(key, Command.peek(THREE_PER_MINUTE, 1)).allowed()).isFalse();
        CounterState stored = (CounterState) countersOf(caller).get(caller.mapKey(key));
        assertThat(stored.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);

        // The caller holds the backup, written by the owner's version 1 backup processor: it takes over the key.
        owner.instance().getLifecycleService().terminate();
        ClusterSupport.awaitClusterSize(caller.instance(), 1);

        assertThat(caller.execute(key, Command.decide(THREE_PER_MINUTE, 1, 0)).allowed()).isFalse();
        assertThat(((CounterState) countersOf(caller).get(caller.mapKey(key))).state()).isEqualTo(stored.state());
    }

    @Test
    void executeOnKey_processorOfUnknownVersion_isRefusedAndTheKeyStaysExact() {
        spendTwoOfThree();
        SerializationService serialization = serializationOf(caller);
        OtherVersionBytes unknown = new OtherVersionBytes(serialization,
                CounterCommand.apply(THREE_PER_MINUTE, 1, 0), UNKNOWN);

        assertThatThrownBy(() -> countersOf(caller).executeOnKey(caller.mapKey(key), unknown))
                .isInstanceOf(HazelcastSerializationException.class)
                .hasMessageContaining("wire format version " + UNKNOWN)
                .hasMessageContaining("reads versions 1 to " + WireFormat.NEWEST_KNOWN);

        assertLastPermitThenRejected();
    }

    @Test
    void set_valueOfUnknownVersion_isRefusedAndTheKeyStaysExact() {
        spendTwoOfThree();
        // Were it read, this state (one permit spent) would hand the key a permit back.
        long[][] onePermitSpent = THREE_PER_MINUTE.apply(null, time.nanos(), 1, 0).state();
        OtherVersionBytes unknown = new OtherVersionBytes(serializationOf(caller),
                new CounterState(Algorithm.TOKEN_BUCKET, onePermitSpent), UNKNOWN);

        assertThatThrownBy(() -> countersOf(caller).set(caller.mapKey(key), unknown))
                .isInstanceOf(HazelcastSerializationException.class)
                .hasMessageContaining("wire format version " + UNKNOWN)
                .hasMessageContaining("reads versions 1 to " + WireFormat.NEWEST_KNOWN);

        assertLastPermitThenRejected();
    }

    private void spendTwoOfThree() {
        assertThat(caller.execute(key, Command.decide(THREE_PER_MINUTE, 1, 0)).allowed()).isTrue();
        assertThat(caller.execute(key, Command.decide(THREE_PER_MINUTE, 1, 0)).allowed()).isTrue();
    }

    private void assertLastPermitThenRejected() {
        assertThat(caller.execute(key, Command.decide(THREE_PER_MINUTE, 1, 0)).allowed()).isTrue();
        assertThat(caller.execute(key, Command.decide(THREE_PER_MINUTE, 1, 0)).allowed()).isFalse();
    }

    private static IMap<String, Object> countersOf(HazelcastCounterStore member) {
        return member.instance().getMap(HazelcastCounterStore.DEFAULT_MAP_NAME);
    }

    private static SerializationService serializationOf(HazelcastCounterStore member) {
        return ((SerializationServiceSupport) member.instance()).getSerializationService();
    }
}
