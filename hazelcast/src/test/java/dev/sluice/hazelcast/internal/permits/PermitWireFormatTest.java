package dev.sluice.hazelcast.internal.permits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.internal.serialization.impl.HeapData;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import dev.sluice.ConcurrencyLimit;
import java.time.Duration;
import java.util.HexFormat;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Pins the wire format of the concurrency permits' types, version 1, as {@code WireFormatTest} pins the others: a known
 * value gives exactly these bytes, these bytes read back to that value, and the same bytes claiming version 2, which
 * this release does not know, are refused.
 */
class PermitWireFormatTest {

    /** Hazelcast's header up to the class id: partition hash, identified-serializable type, flags, factory id. */
    private static final String HEADER = "00000000 fffffffe 01 0017276f ";
    private static final int VERSION_OFFSET = 17;
    private static final UUID NODE = new UUID(1, 2);
    private static final String NODE_BYTES = " 0000000000000001 0000000000000002";

    private static final String ONE_HOLDER = " 00000001" + NODE_BYTES
            + " 0000000000000003" // the permit's number
            + " 00000000000003e8"; // its hold ends at 1,000 ns
    private static final String PERMIT_HOLDERS_V1 = HEADER + "0000001b 01" + ONE_HOLDER;
    private static final String PERMIT_ANSWER_V1 = HEADER + "0000001c 01"
            + " 01" // taken
            + " 00000001" // held after
            + " 0000000000000384 0000000000000384"; // 900 ns until the first and the last hold end
    private static final String ACQUIRE_PERMIT_PROCESSOR_V1 = HEADER + "0000001d 01"
            + " 0000000000000002" // permits
            + " 0000000df8475800" // maximum hold: 60 s
            + NODE_BYTES
            + " 0000000000000003"; // the permit's number
    private static final String RELEASE_PERMIT_PROCESSOR_V1 = HEADER + "0000001e 01" + NODE_BYTES
            + " 0000000000000003";
    private static final String FREE_NODE_PROCESSOR_V1 = HEADER + "0000001f 01" + NODE_BYTES;
    private static final String WRITE_PERMITS_PROCESSOR_V1 = HEADER + "00000020 01"
            + " 01" + ONE_HOLDER // the holders, with their own version
            + " 0000000000000002"; // seconds to live

    private static final InternalSerializationService SERIALIZATION = new DefaultSerializationServiceBuilder().build();

    @AfterAll
    static void dispose() {
        SERIALIZATION.dispose();
    }

    static Stream<Arguments> everyType() {
        PermitHolders one = PermitHolders.NONE.with(NODE, 3, 1_000);
        return Stream.of(
                Arguments.of(one, PERMIT_HOLDERS_V1),
                Arguments.of(new PermitAnswer(true, one, 100), PERMIT_ANSWER_V1),
                Arguments.of(new AcquirePermitProcessor(ConcurrencyLimit.of(2, Duration.ofMinutes(1)), NODE, 3),
                        ACQUIRE_PERMIT_PROCESSOR_V1),
                Arguments.of(new ReleasePermitProcessor(NODE, 3), RELEASE_PERMIT_PROCESSOR_V1),
                Arguments.of(new FreeNodeProcessor(NODE), FREE_NODE_PROCESSOR_V1),
                Arguments.of(new WritePermitsProcessor(one, 2), WRITE_PERMITS_PROCESSOR_V1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyType")
    void toData_knownValue_givesTheBytesOfVersion1(Object value, String hex) {
        assertThat(HexFormat.of().formatHex(SERIALIZATION.toData(value).toByteArray())).isEqualTo(compact(hex));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyType")
    void toObject_bytesOfVersion1_readBackTheValue(Object value, String hex) {
        Object read = SERIALIZATION.toObject(new HeapData(bytes(hex)));

        assertThat(read).isExactlyInstanceOf(value.getClass()).usingRecursiveComparison().isEqualTo(value);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyType")
    void toObject_permitTypeInVersion2_isRefused(Object value, String hex) {
        byte[] version2 = bytes(hex);
        version2[VERSION_OFFSET] = 2;

        assertThatThrownBy(() -> SERIALIZATION.toObject(new HeapData(version2)))
                .isInstanceOf(HazelcastSerializationException.class)
                .hasMessageContaining("wire format version 2")
                .hasMessageContaining("reads versions 1 to 1");
    }

    private static String compact(String hex) {
        return hex.replace(" ", "");
    }

    private static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(compact(hex));
    }
}
