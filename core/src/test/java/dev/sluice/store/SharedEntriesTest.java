package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ManualTimeSource;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SharedEntriesTest {

    private final ManualTimeSource time = new ManualTimeSource();

    @Test
    void entries_beforeAndAfterTheTimeToLive_showThenDropTheEntry() {
        SharedEntries entries = SharedEntries.inMemory(time);
        entries.put("a", "one", Duration.ofSeconds(5));

        time.advance(Duration.ofMillis(4_999));
        assertThat(entries.entries()).isEqualTo(Map.of("a", "one"));

        time.advance(Duration.ofMillis(1));
        assertThat(entries.entries()).isEmpty();
    }

    @Test
    void put_sameKeyAgain_replacesTheValueAndRenewsTheTimeToLive() {
        SharedEntries entries = SharedEntries.inMemory(time);
        entries.put("a", "one", Duration.ofSeconds(5));
        time.advance(Duration.ofSeconds(4));
        entries.put("a", "two", Duration.ofSeconds(5));
        time.advance(Duration.ofSeconds(4));

        assertThat(entries.entries()).isEqualTo(Map.of("a", "two"));
    }

    @Test
    void sharedEntries_localStoreAskedTwice_answersTheSameEntries() {
        try (LocalCounterStore store = new LocalCounterStore(time, 100)) {
            store.services().sharedEntries("console").put("a", "one", Duration.ofSeconds(5));

            assertThat(store.services().sharedEntries("console").entries()).isEqualTo(Map.of("a", "one"));
            assertThat(store.services().sharedEntries("other").entries()).isEmpty();
        }
    }

    @Test
    void sharedEntries_failurePolicyStore_passesTheQuestionToItsRemoteStore() {
        try (LocalCounterStore remote = new LocalCounterStore(time, 100)) {
            FailurePolicyStore guarded = FailurePolicyStore.allowing(remote, Duration.ofMillis(100));
            guarded.services().sharedEntries("console").put("a", "one", Duration.ofSeconds(5));

            assertThat(remote.services().sharedEntries("console").entries()).isEqualTo(Map.of("a", "one"));
        }
    }
}
