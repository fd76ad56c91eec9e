package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The primitive table of one key's permits, against a plain map doing the same. */
class PermitEndsTest {

    @Test
    void randomTakesReleasesAndEnds_holdExactlyWhatAMapHolds() {
        Random random = new Random(11);
        PermitEnds ends = new PermitEnds();
        Map<Long, Long> model = new HashMap<>();
        long nextId = 1;
        long now = 0;
        for (int step = 0; step < 200_000; step++) {
            int action = random.nextInt(10);
            // At most 24 held, so the table stays small and its runs wrap around its end often.
            if (model.isEmpty() || action < 5 && model.size() < 24) {
                long end = now + 1 + random.nextInt(1_000);
                ends.put(nextId, end);
                model.put(nextId, end);
                nextId += 1 + random.nextInt(3);
            } else if (action < 9 || model.size() >= 24) {
                List<Long> held = new ArrayList<>(model.keySet());
                long id = random.nextBoolean() ? held.get(random.nextInt(held.size())) : nextId + 1;
                assertThat(ends.remove(id)).as("remove %d", id).isEqualTo(model.remove(id) != null);
            } else {
                now += random.nextInt(300);
                long at = now;
                ends.dropEndedBy(at);
                model.values().removeIf(end -> end <= at);
                assertThat(ends.earliestEnd()).isEqualTo(model.values().stream().mapToLong(e -> e)
                        .min().orElse(Long.MAX_VALUE));
                assertThat(ends.latestEnd()).isEqualTo(model.values().stream().mapToLong(e -> e)
                        .max().orElse(Long.MIN_VALUE));
            }
            assertThat(ends.size()).isEqualTo(model.size());
        }
        for (long id : List.copyOf(model.keySet())) {
            assertThat(ends.remove(id)).isTrue();
        }
        assertThat(ends.size()).isZero();
    }

    @Test
    void remove_idNeverHeld_isFalseAndChangesNothing() {
        PermitEnds ends = new PermitEnds();
        ends.put(7, 100);

        assertThat(ends.remove(8)).isFalse();
        assertThat(ends.size()).isEqualTo(1);
        assertThat(ends.remove(7)).isTrue();
        assertThat(ends.remove(7)).isFalse();
    }
}
