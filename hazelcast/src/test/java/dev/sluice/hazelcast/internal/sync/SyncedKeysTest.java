package dev.sluice.hazelcast.internal.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.cluster.Member;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.SyncProcessor;
import dev.sluice.hazelcast.internal.wire.SyncResult;
import dev.sluice.internal.state.Transition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One node's synchronised keys against owners in this JVM that answer as the test says, on a manual clock. */
class SyncedKeysTest {

    private static final Policy POLICY = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(10, Duration.ofMinutes(1)))
            .synchronised();

    private final ManualTimeSource clock = new ManualTimeSource();
    private final List<String> calls = new ArrayList<>();
    private final SyncedKeys node = new SyncedKeys(new Owners(), clock, Duration.ofMillis(20), 100);
    /** Makes the next owner call throw at once, as a call that cannot start does. */
    private boolean throwNext;

    @AfterEach
    void close() {
        node.close();
    }

    @Test
    void decide_ownerCallThatThrowsAtOnce_leavesNoLaterRequestOnTheKeyWaiting() {
        throwNext = true;
        assertThatThrownBy(() -> node.decide("k", POLICY, 1)).hasMessage("cannot start");

        CompletableFuture<Decision> next = node.decide("k", POLICY, 1);

        assertThat(next).as("decided by a call of its own, not left behind the one that threw").isDone();
        assertThat(next.join().allowed()).isTrue();
        assertThat(calls).containsExactly("k", "k");
    }

    /** Owners that decide each keyed call on a fresh state at once; sync messages are not sent in these tests. */
    private final class Owners implements SyncedKeys.Owners {

        @Override
        public CompletableFuture<SyncResult> call(String key, SyncProcessor processor) {
            calls.add(key);
            if (throwNext) {
                throwNext = false;
                throw new IllegalStateException("cannot start");
            }
            Transition transition = POLICY.apply(null, clock.nanos(), 1, 0);
            return CompletableFuture.completedFuture(new SyncResult(transition.decision(),
                    transition.changedState(), clock.nanos()));
        }

        @Override
        public Map<Member, List<String>> byOwner(List<String> keys) {
            return Map.of();
        }

        @Override
        public CompletableFuture<List<SyncResult>> send(Member owner, List<String> keys,
                                                         List<SyncProcessor> processors) {
            return new CompletableFuture<>();
        }
    }
}
