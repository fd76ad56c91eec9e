package dev.sluice.hazelcast;

import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.proxy.MapProxyImpl;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/*
 * Why not IMap.submitToKey as it is: its future is a wrapper that completes itself through Hazelcast's default async
 * executor (DelegatingCompletableFuture's constructor), whoever listens. So every asynchronous decision woke a pool
 * thread only to pass the answer on: a third thread and a context switch per call, on top of the caller's and the
 * partition thread's. On two cores that hand-over cost more than the entry processor. A member's map proxy has a public
 * method that returns the call's own future (executeOnKeyInternal, what submitToKey wraps), completed by the thread
 * that runs or receives the call; the answer is deserialized there, which for Sluice's small results costs less than
 * waking a thread. A client's proxy has no such method: its calls keep the hand-over. The method is internal to
 * Hazelcast, so a Hazelcast without it (another version) is used through submitToKey.
 */

/** Sends entry-processor calls on one map, each answer completed on the Hazelcast thread that gets it. Thread-safe. */
final class ProcessorCalls {

    private final IMap<String, CounterState> map;
    /** The member's proxy and its serialization service, or null on a client (or another Hazelcast version). */
    private final @Nullable MapProxyImpl<String, CounterState> member;
    private final @Nullable SerializationService serialization;

    @SuppressWarnings("unchecked")
    ProcessorCalls(IMap<String, CounterState> map) {
        this.map = map;
        MapProxyImpl<String, CounterState> proxy = null;
        SerializationService service = null;
        try {
            if (map instanceof MapProxyImpl<?, ?> memberProxy) {
                proxy = (MapProxyImpl<String, CounterState>) memberProxy;
                service = memberProxy.getNodeEngine().getSerializationService();
            }
        } catch (LinkageError otherHazelcastVersion) {
            proxy = null;
        }
        this.member = proxy;
        this.serialization = service;
    }

    /**
     * Runs {@code processor} on {@code key}'s owner. The answer is completed by the Hazelcast thread that gets it
     * (stages chained without an executor run there) and refuses cancelling: the call is sent.
     */
    <R> CompletableFuture<R> submit(String key, EntryProcessor<String, CounterState, R> processor) {
        CompletionStage<R> call;
        if (member != null && serialization != null) {
            SerializationService deserializer = serialization;
            call = member.executeOnKeyInternal(key, processor)
                    .thenApplyAsync(result -> deserializer.<R>toObject(result), Runnable::run);
        } else {
            call = map.submitToKey(key, processor);
        }
        CompletableFuture<R> answer = CallAnswer.sent();
        call.whenCompleteAsync((result, failure) -> {
            if (failure == null) {
                answer.complete(result);
            } else {
                answer.completeExceptionally(unwrapped(failure));
            }
        }, Runnable::run);
        return answer;
    }

    private static Throwable unwrapped(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
