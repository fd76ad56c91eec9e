package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.internal.serialization.impl.HeapData;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.calls.Batcher;
import dev.sluice.hazelcast.internal.wire.BatchApplyProcessor;
import dev.sluice.hazelcast.internal.wire.BatchResult;
import dev.sluice.hazelcast.internal.wire.CallAnswer;
import dev.sluice.hazelcast.internal.wire.CounterCommand;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.DecisionResult;
import dev.sluice.hazelcast.internal.wire.ForgetProcessor;
import dev.sluice.hazelcast.internal.wire.PeekProcessor;
import dev.sluice.hazelcast.internal.wire.Shard;
import dev.sluice.hazelcast.internal.wire.ShardAnswer;
import dev.sluice.hazelcast.internal.wire.ShardCall;
import dev.sluice.hazelcast.internal.wire.ShardDelta;
import dev.sluice.hazelcast.internal.wire.SliceResult;
import dev.sluice.hazelcast.internal.wire.SyncProcessor;
import dev.sluice.hazelcast.internal.wire.SyncResult;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import dev.sluice.hazelcast.internal.wire.WireSamples;
import dev.sluice.hazelcast.internal.wire.WireVersionQuestion;
import dev.sluice.hazelcast.internal.wire.WriteStateProcessor;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Pins the wire format of every type Sluice sends through Hazelcast, in version 1, the format of the first release: a
 * known value, serialized by Hazelcast's real serialization service (with the hook the jar registers), gives exactly
 * these bytes, and these bytes read back to that value. A change that fails here changes what other members read: it
 * needs a new format version (see {@link WireFormat}), not a new constant.
 *
 * <p>The constants are hex, one group per field: Hazelcast's header (partition hash, serializer type, identified flag,
 * Sluice's factory id, class id), then Sluice's fields in order, starting with the format version.
 */
class WireFormatTest {

    /** Hazelcast's header up to the class id: partition hash, identified-serializable type, flags, factory id. */
    private static final String HEADER = "00000000 fffffffe 01 0017276f ";
    private static final int VERSION_OFFSET = OtherVersionBytes.VERSION_OFFSET;

    private static final String COUNTER_STATE_V1 = HEADER + "00000001"
            + " 01" // version
            + " 07" // GCRA's id (its ordinal is 6)
            + " 00000002" // two limits
            + " 00000001 0000001bf08eb000" // one long: 120 s
            + " 00000002 0000000000000007 ffffffffffffffff"; // two longs: 7, -1
    /** A leaky bucket (id 2) of 3 per minute, capacity 5, "burst", and 100 per hour, "hourly". */
    private static final String POLICY_V1 = " 02 00000002"
            + " 0000000000000003 0000000df8475800 0000000000000005 00000005 6275727374"
            + " 0000000000000064 0000034630b8a000 0000000000000064 00000006 686f75726c79";
    private static final String APPLY_COMMAND_V1 = HEADER + "00000002 01" + POLICY_V1
            + " 01" // apply
            + " 0000000000000002" // cost
            + " 0000000059682f00"; // maximum delay: 1.5 s
    private static final String PEEK_PROCESSOR_V1 = HEADER + "00000003 01" + POLICY_V1
            + " 0000000000000001" // cost
            + " 7fffffffffffffff"; // maximum delay: none
    private static final String WRITE_STATE_PROCESSOR_V1 = HEADER + "00000004 01"
            + " 01 03 00000001 00000002 0000000000000001 0000000df8475800" // fixed window: 1 in the window at 60 s
            + " 000000000000003d"; // time to live: 61 s
    private static final String DECISION_RESULT_V1 = HEADER + "00000005 01"
            + " 00" // not allowed
            + " 0000000000000003 0000000000000000" // limit, remaining
            + " 00000009502f9000 00000004a817c800" // a cost of 2: retry after 40 s, next permit in 20 s
            + " 0000000df8475800 0000000000000000" // reset after 60 s, no delay
            + " 00000005 6275727374"; // "burst"
    private static final String MERGE_POLICY_V1 = HEADER + "00000006 01";
    private static final String WIRE_VERSION_QUESTION_V1 = HEADER + "00000007 01";
    /** A fixed window (id 3) of 1 per second, capacity 1, "second". */
    private static final String SECOND_POLICY = " 03 00000001"
            + " 0000000000000001 000000003b9aca00 0000000000000001 00000006 7365636f6e64";
    private static final String BATCH_APPLY_PROCESSOR_V1 = HEADER + "00000008 01"
            + " 00000002" + POLICY_V1 + SECOND_POLICY // two distinct policies, each once
            + " 00000003" // three requests:
            + " 00000000 0000000000000002 0000000059682f00" // the first policy, cost 2, maximum delay 1.5 s
            + " 00000001 0000000000000001 0000000000000000" // the second, cost 1, no delay
            + " 00000000 0000000000000001 0000000000000000"; // the first again, cost 1, no delay
    private static final String BATCH_RESULT_V1 = HEADER + "00000009 01"
            + " 00000002" // two decisions:
            + " 01 0000000000000003 0000000000000001" // allowed, limit 3, remaining 1
            + " 0000000000000000 0000000000000000 00000009502f9000 0000000000000000" // no retry, reset after 40 s
            + " 00" // by the policy's first limit
            + " 00 0000000000000064 0000000000000000" // rejected, limit 100, remaining 0
            + " 0000000861c46800 0000000861c46800 0000034630b8a000 0000000000000000" // retry and next in 36 s
            + " 01"; // by the policy's second limit
    private static final String RECORD_COMMAND_V1 = HEADER + "00000002 01" + POLICY_V1
            + " 03" // record
            + " 0000000000000002" // cost
            + " 00000006fc23ac00"; // age: 30 s
    private static final String RESERVE_COMMAND_V1 = HEADER + "00000002 01" + POLICY_V1
            + " 04" // reserve
            + " 0000000000000001" // cost
            + " 000000012a05f200"; // longest wait: 5 s

    private static final String TAKE_SLICE_COMMAND_V1 = HEADER + "00000002 01" + SECOND_POLICY
            + " 08" // take a slice
            + " 0000000000000001" // the asking request's cost
            + " 0000000000000020" // the slice asked for: 32
            + " 0000000000989680"; // lifetime: 10 ms
    private static final String SLICE_RESULT_V1 = HEADER + "0000000d 01"
            + " 01 0000000000000064 0000000000000058" // allowed, limit 100, remaining 88
            + " 0000000000000000 0000000017d78400" // no retry, next permit in 400 ms
            + " 0000000017d78400 0000000000000000" // reset after 400 ms, no delay
            + " 00000006 7365636f6e64" // "second"
            + " 000000000000000c" // a slice of 12 permits
            + " 0000000017c841c0" // valid for 399 ms
            + " 1886725211bd4600"; // counted at 1,767,225,600.6 s
    private static final String GIVE_BACK_COMMAND_V1 = HEADER + "00000002 01" + SECOND_POLICY
            + " 06" // give back
            + " 0000000000000007" // permits given back
            + " 1886725211bd4600"; // the slice's time on the owner
    private static final String COUNT_COMMAND_V1 = HEADER + "00000002 01" + SECOND_POLICY
            + " 02" // count
            + " 0000000000000001" // cost
            + " 0000000000000000"; // maximum delay
    private static final String UNDO_COMMAND_V1 = HEADER + "00000002 01" + SECOND_POLICY
            + " 05" // undo
            + " 0000000000000001" // the cost of the request taken back
            + " 1886725211bd4600"; // the count's time on the owner
    private static final String SETTLE_COMMAND_V1 = HEADER + "00000002 01" + SECOND_POLICY
            + " 07" // settle
            + " 0000000000000005" // the estimate counted
            + " 1886725211bd4600" // the count's time on the owner
            + " 0000000000000002"; // the actual cost
    private static final String SYNC_PROCESSOR_V1 = HEADER + "00000014 01" + SECOND_POLICY
            + " 0000000000000000 0000000000000000" // no request decided: cost 0, no delay
            + " 00" // it would not reserve
            + " 00000002" // two hits:
            + " 0000000000000001 00000000001e8480" // cost 1, made 2 ms before the call left
            + " 0000000000000003 0000000023c34600"; // cost 3, made 600 ms before
    /** A fixed window's state: window 1,767,225,600,000,000,000 (ns of 1 s windows), count 1. */
    private static final String ONE_LIMIT_STATE = " 00000001 00000002 18867251edfa0000 0000000000000001";
    private static final String SYNC_RESULT_V1 = HEADER + "00000015 01"
            + " 01 0000000000000001 0000000000000000" // allowed, limit 1, remaining 0
            + " 0000000000000000 0000000017d78400" // no retry, next permit in 400 ms
            + " 0000000017d78400 0000000000000000" // reset after 400 ms, no delay
            + " 00000006 7365636f6e64" // "second"
            + " 0000000000000002" // 2 permits over-admitted
            + ONE_LIMIT_STATE;
    /** A fixed window's counters as written in place: version 1, id 3, one limit: window 1,767,225,600, count 3. */
    private static final String WINDOW_COUNTERS = " 01 03 00000001 00000002 000000006955b900 0000000000000003";
    /** One limit's over-admission: in the window 1,767,225,600 s, at most 2 past the limit. */
    private static final String OVER_ADMITTED = " 00000001 000000006955b900 0000000000000002";
    private static final String SHARD_V1 = HEADER + "00000016 01"
            + " 0000000000000001 0000000000000000" // last version 1, no sweep yet
            + " 00000001 00000001 6b" // one key: "k"
            + " 0000000000000001 188672522994ca00" // written at version 1, back to full at 1,767,225,601 s
            + WINDOW_COUNTERS + OVER_ADMITTED;
    private static final String SHARD_CALL_V1 = HEADER + "00000017 01"
            + " 00000001 00000001 6b" // one key: "k"
            + " fffffffe 01 0017276f 00000014 01" + SECOND_POLICY // its processor,
            + " 0000000000000001 0000000000000000 01 00000000"; // reserving 1, no delay, no hits
    private static final String SHARD_ANSWER_V1 = HEADER + "00000018 01"
            + " 1886725211bd4600" // the owner's time: 1,767,225,600.6 s
            + " 00000003" // three nodes seen
            + " 00000001 0000000000000007" // one key, at version 7, answered
            + " fffffffe 01 0017276f 00000015 01 01 0000000000000001 0000000000000000 0000000000000000"
            + " 0000000017d78400 0000000017d78400 0000000000000000 00000006 7365636f6e64" // allowed, "second"
            + " 0000000000000000" + ONE_LIMIT_STATE; // nothing over-admitted
    private static final String SHARD_DELTA_V1 = HEADER + "00000019 01"
            + " 00000002" // two changes:
            + " 00000001 6b 0000000000000008" // "k" at version 8,
            + " 01 188672522994ca00" + WINDOW_COUNTERS + OVER_ADMITTED // written, back to full at 1,767,225,601 s
            + " 00000004 676f6e65 0000000000000009 00"; // "gone" at version 9, dropped
    private static final String FORGET_PROCESSOR_V1 = HEADER + "0000001a 01";

    private static final CounterState WINDOW_OF_ONE = new CounterState(Algorithm.FIXED_WINDOW,
            new long[][] {{1_767_225_600L, 1}});
    private static final CounterState WINDOW_OF_THREE = new CounterState(Algorithm.FIXED_WINDOW,
            new long[][] {{1_767_225_600L, 3}});

    private static final InternalSerializationService SERIALIZATION = new DefaultSerializationServiceBuilder().build();

    @AfterAll
    static void dispose() {
        SERIALIZATION.dispose();
    }

    static Stream<Arguments> everyType() {
        Policy policy = Policy.of(Algorithm.LEAKY_BUCKET, Limit.of(3, Duration.ofMinutes(1), 5, "burst"),
                Limit.of(100, Duration.ofHours(1)).named("hourly"));
        Policy second = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(1, Duration.ofSeconds(1), 1, "second"));
        return Stream.of(
                Arguments.of(new CounterState(Algorithm.GCRA, new long[][] {{120_000_000_000L}, {7, -1}}),
                        COUNTER_STATE_V1),
                Arguments.of(CounterCommand.apply(policy, 2, 1_500_000_000L), APPLY_COMMAND_V1),
                Arguments.of(new PeekProcessor(policy, 1), PEEK_PROCESSOR_V1),
                Arguments.of(new WriteStateProcessor<>(new CounterState(Algorithm.FIXED_WINDOW,
                        new long[][] {{1, 60_000_000_000L}}), 61), WRITE_STATE_PROCESSOR_V1),
                Arguments.of(new DecisionResult(Decision.rejected(3, "burst", 40_000_000_000L)
                        .nextPermitIn(20_000_000_000L).resetIn(60_000_000_000L).build()), DECISION_RESULT_V1),
                Arguments.of(new MoreConsumedMergePolicy(), MERGE_POLICY_V1),
                Arguments.of(new WireVersionQuestion(), WIRE_VERSION_QUESTION_V1),
                Arguments.of(new BatchApplyProcessor(List.of(request(policy, 2, 1_500_000_000L),
                        request(second, 1, 0), request(policy, 1, 0))), BATCH_APPLY_PROCESSOR_V1),
                Arguments.of(new BatchResult(new Decision[] {
                    Decision.granted(3, "").remaining(1).nextPermitIn(0).resetIn(40_000_000_000L).build(),
                    Decision.rejected(100, "", 36_000_000_000L).nextPermitIn(36_000_000_000L)
                            .resetIn(3_600_000_000_000L).build()},
                        new int[] {0, 1}), BATCH_RESULT_V1),
                Arguments.of(CounterCommand.record(policy, 2, 30_000_000_000L), RECORD_COMMAND_V1),
                Arguments.of(CounterCommand.reserve(policy, 1, 5_000_000_000L), RESERVE_COMMAND_V1),
                Arguments.of(CounterCommand.takeSlice(second, 1, 32, 10_000_000L), TAKE_SLICE_COMMAND_V1),
                Arguments.of(new SliceResult(Decision.granted(100, "second").remaining(88).nextPermitIn(400_000_000L)
                        .resetIn(400_000_000L).build(), 12, 399_000_000L, 1_767_225_600_600_000_000L), SLICE_RESULT_V1),
                Arguments.of(CounterCommand.giveBack(second, 7, 1_767_225_600_600_000_000L), GIVE_BACK_COMMAND_V1),
                Arguments.of(CounterCommand.count(second, 1, 0), COUNT_COMMAND_V1),
                Arguments.of(CounterCommand.undo(second, 1, 1_767_225_600_600_000_000L), UNDO_COMMAND_V1),
                Arguments.of(new SyncProcessor(second, 0, 0, false, new long[] {1, 3},
                        new long[] {2_000_000L, 600_000_000L}), SYNC_PROCESSOR_V1),
                Arguments.of(CounterCommand.settle(second, 5, 2, 1_767_225_600_600_000_000L), SETTLE_COMMAND_V1),
                Arguments.of(new SyncResult(Decision.granted(1, "second").nextPermitIn(400_000_000L)
                        .resetIn(400_000_000L)
                        .build(), new long[][] {{1_767_225_600_000_000_000L, 1}}, 2), SYNC_RESULT_V1),
                Arguments.of(shard(second), SHARD_V1),
                Arguments.of(new ShardCall(List.of("k"), List.of(new SyncProcessor(second, 1, 0, true, new long[0],
                        new long[0]))), SHARD_CALL_V1),
                Arguments.of(new ShardAnswer(1_767_225_600_600_000_000L, 3, new long[] {7}, List.of(
                        new SyncResult(Decision.granted(1, "second").nextPermitIn(400_000_000L).resetIn(400_000_000L)
                                .build(),
                                new long[][] {{1_767_225_600_000_000_000L, 1}}, 0))), SHARD_ANSWER_V1),
                Arguments.of(delta(second), SHARD_DELTA_V1),
                Arguments.of(new ForgetProcessor(), FORGET_PROCESSOR_V1));
    }

    /** A shard of one key of a limit of 1 per second, written once: 2 hits merged on 1 took it 2 past. */
    private static Shard shard(Policy second) {
        return WireSamples.shard("k", second, WINDOW_OF_ONE, WINDOW_OF_THREE, 1_767_225_600_500_000_000L,
                1_767_225_601_000_000_000L);
    }

    /** A backup writing that key at version 8 and dropping another. */
    private static ShardDelta delta(Policy second) {
        return WireSamples.delta("k", second, WINDOW_OF_ONE, WINDOW_OF_THREE, 1_767_225_600_500_000_000L,
                1_767_225_601_000_000_000L, 8, "gone");
    }

    private static Batcher.Request request(Policy policy, long cost, long maxDelayNanos) {
        return new Batcher.Request("k", policy, cost, maxDelayNanos, CallAnswer.waiting());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyType")
    void toData_knownValue_givesTheBytesOfItsVersion(Object value, String hex) {
        assertThat(HexFormat.of().formatHex(SERIALIZATION.toData(value).toByteArray())).isEqualTo(compact(hex));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyType")
    void toObject_bytesOfItsVersion_readBackTheValue(Object value, String hex) {
        Object read = SERIALIZATION.toObject(new HeapData(bytes(hex)));

        assertThat(read).isExactlyInstanceOf(value.getClass())
                .usingRecursiveComparison().withEqualsForType(Policy::equals, Policy.class).isEqualTo(value);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyType")
    void toObject_unknownVersion_isRefusedNamingTheVersionAndTheKnownOnes(Object value, String hex) {
        byte[] unknown = bytes(hex);
        unknown[VERSION_OFFSET] = WireFormat.NEWEST_KNOWN + 1;

        assertThatThrownBy(() -> SERIALIZATION.toObject(new HeapData(unknown)))
                .isInstanceOf(HazelcastSerializationException.class)
                .hasMessageContaining("wire format version " + (WireFormat.NEWEST_KNOWN + 1))
                .hasMessageContaining("reads versions 1 to " + WireFormat.NEWEST_KNOWN);
    }

    @Test
    void toObject_settleOfANegativeActualCost_isRefused() {
        byte[] negative = bytes(SETTLE_COMMAND_V1);
        java.util.Arrays.fill(negative, negative.length - 8, negative.length, (byte) 0xff);

        assertThatThrownBy(() -> SERIALIZATION.toObject(new HeapData(negative)))
                .isInstanceOf(HazelcastSerializationException.class).hasMessageContaining("a settle of estimate 5");
    }

    @Test
    void toObject_shardCallClaimingMoreKeysThanItsBytes_isRefusedBeforeAllocating() {
        byte[] bytes = bytes(SHARD_CALL_V1);
        bytes[VERSION_OFFSET + 1] = 0x7f;

        assertThatThrownBy(() -> SERIALIZATION.toObject(new HeapData(bytes)))
                .isInstanceOf(HazelcastSerializationException.class)
                .hasMessageContaining("keys: 1 to 4096 fit");
    }

    @Test
    void toObject_batchClaimingMoreRequestsThanItsBytes_isRefusedBeforeAllocating() {
        byte[] bytes = bytes(BATCH_APPLY_PROCESSOR_V1);
        int requestCount = bytes.length - 3 * (4 + 8 + 8) - 4;
        bytes[requestCount] = 0x7f;

        assertThatThrownBy(() -> SERIALIZATION.toObject(new HeapData(bytes)))
                .isInstanceOf(HazelcastSerializationException.class)
                .hasMessageContaining("requests: 1 to " + WireFormat.MAX_BATCH_REQUESTS);
    }

    @Test
    void toObject_counterStateOfUnknownAlgorithmId_isRefusedNamingTheId() {
        byte[] bytes = bytes(COUNTER_STATE_V1);
        bytes[VERSION_OFFSET + 1] = 99;

        assertThatThrownBy(() -> SERIALIZATION.toObject(new HeapData(bytes)))
                .isInstanceOf(HazelcastSerializationException.class)
                .hasMessageContaining("no algorithm has id 99");
    }

    @Test
    void toObject_processorOfUnknownAlgorithmId_isRefusedNamingTheId() {
        byte[] bytes = bytes(APPLY_COMMAND_V1);
        bytes[VERSION_OFFSET + 1] = 0;

        assertThatThrownBy(() -> SERIALIZATION.toObject(new HeapData(bytes)))
                .isInstanceOf(HazelcastSerializationException.class)
                .hasMessageContaining("no algorithm has id 0");
    }

    @Test
    void toObject_counterCommandOfUnknownCode_isRefusedNamingTheCode() {
        byte[] bytes = bytes(APPLY_COMMAND_V1);
        bytes[bytes.length - 2 * Long.BYTES - 1] = 99;

        assertThatThrownBy(() -> SERIALIZATION.toObject(new HeapData(bytes)))
                .isInstanceOf(HazelcastSerializationException.class)
                .hasMessageContaining("no counter command has code 99");
    }

    @Test
    void toData_everyAlgorithm_writesItsIdNotItsOrdinal() {
        for (Algorithm algorithm : Algorithm.values()) {
            byte[] bytes = SERIALIZATION.toData(new CounterState(algorithm, new long[][] {{}})).toByteArray();

            assertThat(bytes[VERSION_OFFSET + 1]).as("%s", algorithm).isEqualTo((byte) algorithm.id());
        }
    }

    private static String compact(String hex) {
        return hex.replace(" ", "");
    }

    private static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(compact(hex));
    }
}
