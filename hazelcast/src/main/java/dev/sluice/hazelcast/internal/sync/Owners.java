package dev.sluice.hazelcast.internal.sync;

import com.hazelcast.map.EntryProcessor;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.ShardAnswer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The calls that reach the owners of the synchronised keys' shards. */
@FunctionalInterface
public interface Owners {

    /**
     * Runs {@code processors} on {@code keys}, all of shard {@code shard} and distinct, in one call on the shard's
     * owner; completes with the answer, or exceptionally when the call fails.
     */
    CompletableFuture<ShardAnswer> call(int shard, List<String> keys,
                                        List<? extends EntryProcessor<String, CounterState, ?>> processors);
}
