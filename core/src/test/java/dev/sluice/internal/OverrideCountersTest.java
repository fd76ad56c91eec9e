package dev.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OverrideCountersTest {

    private final AtomicInteger made = new AtomicInteger();
    private final OverrideCounters<Integer, String> counters = new OverrideCounters<>(limits -> {
        made.incrementAndGet();
        return "counter of " + limits;
    });

    @Test
    void of_sameLimitsTwice_makesTheCounterOnce() {
        assertThat(counters.of(7)).isEqualTo("counter of 7");
        assertThat(counters.of(7)).isEqualTo("counter of 7");

        assertThat(made).hasValue(1);
    }

    @Test
    void of_moreDistinctLimitsThanKept_emptiesTheCacheAndMakesThemAgain() {
        for (int limits = 0; limits < OverrideCounters.MAX; limits++) {
            counters.of(limits);
        }
        counters.of(0);
        assertThat(made).as("all kept").hasValue(OverrideCounters.MAX);

        counters.of(OverrideCounters.MAX);
        counters.of(0);

        assertThat(made).as("emptied by one more, then made again").hasValue(OverrideCounters.MAX + 2);
    }
}
