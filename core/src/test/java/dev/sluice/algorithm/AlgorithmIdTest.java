package dev.sluice.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Algorithm ids leave the process (the Hazelcast wire format): they are pinned here and never change. */
class AlgorithmIdTest {

    @Test
    void id_everyAlgorithm_isPinned() {
        Map<Algorithm, Integer> ids = new LinkedHashMap<>();
        for (Algorithm algorithm : Algorithm.values()) {
            ids.put(algorithm, algorithm.id());
        }
        assertThat(ids).containsExactlyInAnyOrderEntriesOf(Map.of(
                Algorithm.TOKEN_BUCKET, 1,
                Algorithm.LEAKY_BUCKET, 2,
                Algorithm.FIXED_WINDOW, 3,
                Algorithm.SLIDING_WINDOW_LOG, 4,
                Algorithm.SLIDING_WINDOW_COUNTER, 5,
                Algorithm.STEPPED_SLIDING_WINDOW, 6,
                Algorithm.GCRA, 7));
    }

    @Test
    void id_twoAlgorithms_neverShareOne() {
        assertThat(Arrays.stream(Algorithm.values()).mapToInt(Algorithm::id).distinct().count())
                .isEqualTo(Algorithm.values().length);
    }

    @Test
    void byId_everyAlgorithmsId_findsThatAlgorithm() {
        for (Algorithm algorithm : Algorithm.values()) {
            assertThat(Algorithm.byId(algorithm.id())).contains(algorithm);
        }
    }

    @Test
    void byId_unknownId_isEmpty() {
        assertThat(Algorithm.byId(0)).isEmpty();
        assertThat(Algorithm.byId(8)).isEmpty();
        assertThat(Algorithm.byId(-1)).isEmpty();
    }
}
