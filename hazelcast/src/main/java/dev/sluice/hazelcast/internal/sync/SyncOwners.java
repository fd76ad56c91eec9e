package dev.sluice.hazelcast.internal.sync;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.Partition;
import dev.sluice.hazelcast.internal.wire.SyncProcessor;
import dev.sluice.hazelcast.internal.wire.SyncResult;
import dev.sluice.hazelcast.internal.wire.SyncTask;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * The synchronised keys' calls over Hazelcast's public API: one keyed processor call for a key with no view, and one
 * {@link SyncTask} per owning member through the executor {@value #EXECUTOR}'s {@code submitToMember}, whose keyed
 * calls on that member wait for their synchronous backups. Works on a member and on a client. Thread-safe.
 */
public final class SyncOwners implements SyncedKeys.Owners {

    /** The executor the synchronisation tasks run on, on each member. */
    static final String EXECUTOR = "sluice-sync";

    private final HazelcastInstance instance;
    private final String mapName;
    private final BiFunction<String, SyncProcessor, CompletableFuture<SyncResult>> calls;

    /** @param calls sends one processor to a key's owner, as the store sends every keyed call */
    public SyncOwners(HazelcastInstance instance, String mapName,
                      BiFunction<String, SyncProcessor, CompletableFuture<SyncResult>> calls) {
        this.instance = instance;
        this.mapName = mapName;
        this.calls = calls;
    }

    @Override
    public CompletableFuture<SyncResult> call(String key, SyncProcessor processor) {
        return calls.apply(key, processor);
    }

    @Override
    public Map<Member, List<String>> byOwner(List<String> keys) {
        Map<Member, List<String>> owned = new LinkedHashMap<>();
        for (String key : keys) {
            Partition partition = instance.getPartitionService().getPartition(key);
            Member owner = partition.getOwner();
            if (owner != null) {
                owned.computeIfAbsent(owner, member -> new ArrayList<>()).add(key);
            }
        }
        return owned;
    }

    @Override
    public CompletableFuture<List<SyncResult>> send(Member owner, List<String> keys, List<SyncProcessor> processors) {
        CompletableFuture<List<SyncResult>> answer = new CompletableFuture<>();
        instance.getExecutorService(EXECUTOR).submitToMember(new SyncTask(mapName, keys, processors), owner,
                new ExecutionCallback<ArrayList<SyncResult>>() {
                    @Override
                    public void onResponse(ArrayList<SyncResult> response) {
                        answer.complete(response);
                    }

                    @Override
                    public void onFailure(Throwable t) {
                        answer.completeExceptionally(t);
                    }
                });
        return answer;
    }
}
