package dev.sluice.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.algorithm.Policy;
import org.junit.jupiter.api.Test;

/** The text form of the compare-and-set store's values: golden texts, round trips and refused input. */
class StateTextTest {

    @Test
    void encode_tokenBucketState_isTheGoldenText() {
        long[][] state = {{9, 1_767_225_600_000_000_000L, 0}};
        assertThat(StateText.encode(state)).isEqualTo("1;9,dfct6ww35s00,0");
    }

    @Test
    void decode_encodedStates_roundTrip() {
        long[][] state = {{Long.MIN_VALUE, -1, 0, Long.MAX_VALUE}, {}, null, {42}};
        assertThat(StateText.encode(state)).isEqualTo("1;-1y2p0ij32e8e8,-1,0,1y2p0ij32e8e7;;!;16");
        assertThat(StateText.decode(StateText.encode(state))).isDeepEqualTo(state);
    }

    @Test
    void decode_noText_isAFreshKey() {
        assertThat(StateText.decode(null)).isNull();
    }

    @Test
    void decode_anotherFormatVersion_isRefused() {
        assertThatThrownBy(() -> StateText.decode("2;1,2,3"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("a counter value of another format (version '2', this store reads '1')");
        assertThatThrownBy(() -> StateText.decode("")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void decode_textThatIsNoState_isRefused() {
        for (String text : new String[] {"1", "1x", "1;1,,2", "1;zzzzzzzzzzzzzzzz", "1;1 2", "1;!!", "1;1,"}) {
            assertThatThrownBy(() -> StateText.decode(text)).as(text)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("a counter value that is not a Sluice state");
        }
    }

    @Test
    void decode_moreLimitsThanAPolicyHolds_isRefusedBeforeReadingThem() {
        String text = "1" + ";0".repeat(Policy.MAX_LIMITS + 1);
        assertThatThrownBy(() -> StateText.decode(text)).isInstanceOf(IllegalStateException.class);
        assertThat(StateText.decode("1" + ";0".repeat(Policy.MAX_LIMITS))).hasNumberOfRows(Policy.MAX_LIMITS);
    }
}
