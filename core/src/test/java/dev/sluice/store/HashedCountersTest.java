package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HashedCountersTest {

    private final HashedCounters counters = new HashedCounters();
    private final HashedCounters.Slot key = counters.slotOf("rule@0123456789ab|10.0.0.7");

    @Test
    void entry_statesOfOneOrManyLimits_readBackAsTheyWere() {
        long[][] oneLimit = {{7, -3, Long.MAX_VALUE}};
        long[][] manyLimits = {{1}, null, {}, {2, 3, 4, 5}, null};

        assertThat(HashedCounters.liveState(HashedCounters.entry(key, oneLimit, 10), key, 9)).isDeepEqualTo(oneLimit);
        assertThat(HashedCounters.liveState(HashedCounters.entry(key, manyLimits, 10), key, 9))
                .isDeepEqualTo(manyLimits);
        assertThat(HashedCounters.liveState(HashedCounters.entry(key, null, 10), key, 9)).isNull();
    }

    @Test
    void entry_oneLimit_costsTwoLongsMoreThanItsState() {
        assertThat(HashedCounters.entry(key, new long[][] {{1, 2, 3}}, 10)).hasSize(5);
    }

    @Test
    void liveState_expiredOrAnotherKeys_isNone() {
        long[] entry = HashedCounters.entry(key, new long[][] {{1}}, 10);
        HashedCounters.Slot another = counters.slotOf("rule@0123456789ab|10.0.0.8");

        assertThat(HashedCounters.liveState(entry, key, 10)).as("expired").isNull();
        assertThat(HashedCounters.liveState(entry, another, 9)).as("another key's").isNull();
        assertThat(HashedCounters.takenByAnother(entry, another, 9)).isTrue();
        assertThat(HashedCounters.takenByAnother(entry, key, 9)).isFalse();
        assertThat(HashedCounters.takenByAnother(entry, another, 10)).as("expired: free").isFalse();
    }
}
