package dev.sluice.hazelcast.internal.calls;

import com.hazelcast.core.IndeterminateOperationStateException;
import com.hazelcast.core.MemberLeftException;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.internal.util.ThreadUtil;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.MapService;
import com.hazelcast.map.impl.operation.MapOperation;
import com.hazelcast.map.impl.proxy.MapProxyImpl;
import com.hazelcast.spi.impl.NodeEngine;
import dev.sluice.hazelcast.internal.wire.CallAnswer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * Sends entry-processor calls on one map, each answer completed on the Hazelcast thread that gets it (a member's own
 * call future, not {@code submitToKey}'s hand-over to a pool thread; see {@code docs/design/batching.md}, Threads).
 * Thread-safe.
 *
 * @param <V> the map's values
 */
public final class ProcessorCalls<V> {

    private final IMap<String, V> map;
    /** The member's proxy and its serialization service, or null on a client (or another Hazelcast version). */
    private final @Nullable MapProxyImpl<String, V> member;
    private final @Nullable SerializationService serialization;

    @SuppressWarnings("unchecked")
    public ProcessorCalls(IMap<String, V> map) {
        this.map = map;
        MapProxyImpl<String, V> proxy = null;
        SerializationService service = null;
        try {
            if (map instanceof MapProxyImpl<?, ?> memberProxy) {
                proxy = (MapProxyImpl<String, V>) memberProxy;
                service = memberProxy.getNodeEngine().getSerializationService();
            }
        } catch (LinkageError otherHazelcastVersion) {
            proxy = null;
        }
        this.member = proxy;
        this.serialization = service;
    }

    /** The map the calls run on. */
    IMap<String, V> map() {
        return map;
    }

    /**
     * Runs {@code processor} on {@code key}'s owner. The answer is completed by the Hazelcast thread that gets it
     * (stages chained without an executor run there) and refuses cancelling: the call is sent.
     */
    public <R> CompletableFuture<R> submit(String key, EntryProcessor<String, V, R> processor) {
        CompletionStage<R> call;
        if (member != null && serialization != null) {
            SerializationService deserializer = serialization;
            call = member.executeOnKeyInternal(key, processor)
                    .thenApplyAsync(result -> deserializer.<R>toObject(result), Runnable::run);
        } else {
            call = map.submitToKey(key, processor);
        }
        return CallAnswer.of(call);
    }

    /**
     * As {@link #submit}, for a processor that must not run twice: one that gives permits back. A member's call whose
     * owner leaves before answering fails ({@link MemberLeftException}, {@link IndeterminateOperationStateException})
     * instead of being sent again to the next owner, whose backup may hold its effect already; so a give-back is
     * lost (fewer pass) rather than made twice (more pass). A client does not send an entry processor again (a
     * member relaying its call may: {@code docs/design/all-or-nothing.md}).
     */
    public <R> CompletableFuture<R> submitOnce(String key, EntryProcessor<String, V, R> processor) {
        if (member == null || serialization == null) {
            return submit(key, processor);
        }
        SerializationService deserializer = serialization;
        NodeEngine engine = member.getNodeEngine();
        Data keyData = deserializer.toData(key, member.getPartitionStrategy());
        MapOperation operation = member.getOperationProvider().createEntryOperation(member.getName(), keyData,
                processor);
        operation.setThreadId(ThreadUtil.getThreadId());
        CompletionStage<R> call = engine.getOperationService()
                .createInvocationBuilder(MapService.SERVICE_NAME, operation,
                        engine.getPartitionService().getPartitionId(keyData))
                .setResultDeserialized(false)
                .setFailOnIndeterminateOperationState(true)
                .<Data>invoke()
                .thenApplyAsync(result -> deserializer.<R>toObject(result), Runnable::run);
        return CallAnswer.of(call);
    }
}
