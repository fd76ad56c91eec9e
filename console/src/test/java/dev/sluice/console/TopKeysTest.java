package dev.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TopKeysTest {

    @Test
    void add_fewerKeysThanCapacity_countsEachExactly() {
        TopKeys top = new TopKeys(4);
        for (int i = 0; i < 3; i++) {
            top.add("a");
        }
        top.add("b");

        assertThat(top.top(10)).containsExactly(new TopKeys.Entry("a", 3, 0), new TopKeys.Entry("b", 1, 0));
    }

    @Test
    void add_tenThousandKeysAndTwoHeavyHitters_keepsTheHittersInBoundedMemory() {
        TopKeys top = new TopKeys(16);
        for (int i = 0; i < 10_000; i++) {
            top.add("key-" + i);
            if (i % 10 == 0) {
                top.add("heavy-1");
            }
            if (i % 12 == 0) {
                top.add("heavy-2");
            }
        }

        // Each heavy hitter has more than total / capacity (11,834 / 16) events, so space-saving keeps both.
        List<TopKeys.Entry> most = top.top(2);
        assertThat(most).extracting(TopKeys.Entry::key).containsExactlyInAnyOrder("heavy-1", "heavy-2");
        TopKeys.Entry heavy = most.stream().filter(e -> e.key().equals("heavy-1")).findFirst().orElseThrow();
        assertThat(heavy.count() - heavy.error()).isLessThanOrEqualTo(1_000);
        assertThat(heavy.count()).isGreaterThanOrEqualTo(1_000);
        assertThat(top.top(100)).hasSize(16);
    }
}
