package dev.sluice.hazelcast.internal.sync;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.map.EntryProcessor;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.ManualTimeSource;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.ShardAnswer;
import dev.sluice.hazelcast.internal.wire.SyncProcessor;
import dev.sluice.hazelcast.internal.wire.SyncResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What a lane's calls carry: each key once, whatever was listed. The owner here is the test's (a call is a future it
 * completes): this is the lane's own bookkeeping; calls to real members are {@code SyncedKeysTest}'s.
 */
class LaneTest {

    private static final Policy POLICY = Policy.of(Algorithm.FIXED_WINDOW, Limit.of(100, Duration.ofSeconds(1)))
            .synchronised();

    private final ManualTimeSource time = new ManualTimeSource();
    private final List<List<String>> calls = new ArrayList<>();
    private final List<CompletableFuture<ShardAnswer>> answers = new ArrayList<>();
    private final Owners owners = new Owners() {
        @Override
        public CompletableFuture<ShardAnswer> call(int shard, List<String> keys,
                                                   List<? extends EntryProcessor<String, CounterState, ?>> processors) {
            calls.add(List.copyOf(keys));
            CompletableFuture<ShardAnswer> answer = new CompletableFuture<>();
            answers.add(answer);
            return answer;
        }
    };
    private final Lane lane = new Lane(0, owners, time, new SyncFigures(time), Runnable::run);

    @Test
    void send_twoViewsOfOneKeyListed_carriesTheKeyOncePerCallAndTheOtherInTheNext() {
        OneHit first = new OneHit("k");
        OneHit second = new OneHit("k");
        lane.list(first, false);
        lane.list(new OneHit("j"), false);
        lane.list(second, false);

        lane.send(false);
        assertThat(calls).containsExactly(List.of("k", "j"));

        answers.get(0).complete(answerOf(2));
        assertThat(calls).as("the second view rides as soon as the first call answers")
                .containsExactly(List.of("k", "j"), List.of("k"));
        answers.get(1).complete(answerOf(1));
        assertThat(first.answers).isEqualTo(1);
        assertThat(second.answers).isEqualTo(1);
    }

    private static ShardAnswer answerOf(int keys) {
        SyncResult counted = new SyncResult(Decision.granted(100, "k").remaining(99).nextPermitIn(0)
                .resetIn(1_000_000_000L).build(),
                new long[][] {{0, 1}}, 0);
        return new ShardAnswer(0, 1, new long[keys], Collections.nCopies(keys, counted));
    }

    /** A view with one hit to send, counting the answers it gets. */
    private static final class OneHit implements Lane.Rider {
        private final String key;
        private int answers;

        OneHit(String key) {
            this.key = key;
        }

        @Override
        public String key() {
            return key;
        }

        @Override
        public Optional<SyncProcessor> outgoing(long sentAt) {
            return Optional.of(new SyncProcessor(POLICY, 0, 0, false, new long[] {1}, new long[] {0}));
        }

        @Override
        public void answered(SyncResult result, long version, long received, List<Runnable> completions) {
            answers++;
        }

        @Override
        public void failed(Throwable cause, List<Runnable> completions) {
        }
    }
}
