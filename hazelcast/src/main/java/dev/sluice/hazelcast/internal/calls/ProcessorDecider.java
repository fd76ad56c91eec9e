package dev.sluice.hazelcast.internal.calls;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.spi.exception.RetryableException;
import com.hazelcast.map.IMap;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.sync.SyncOwners;
import dev.sluice.hazelcast.internal.sync.SyncedKeys;
import dev.sluice.hazelcast.internal.wire.ApplyProcessor;
import dev.sluice.hazelcast.internal.wire.BatchApplyProcessor;
import dev.sluice.hazelcast.internal.wire.BatchResult;
import dev.sluice.hazelcast.internal.wire.CallbackExecutor;
import dev.sluice.hazelcast.internal.wire.CountProcessor;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.DecisionResult;
import dev.sluice.hazelcast.internal.wire.GiveBackProcessor;
import dev.sluice.hazelcast.internal.wire.MemberBatchTask;
import dev.sluice.hazelcast.internal.wire.PeekProcessor;
import dev.sluice.hazelcast.internal.wire.RecordProcessor;
import dev.sluice.hazelcast.internal.wire.ReserveProcessor;
import dev.sluice.hazelcast.internal.wire.SliceResult;
import dev.sluice.hazelcast.internal.wire.TakeSliceProcessor;
import dev.sluice.hazelcast.internal.wire.UndoProcessor;
import dev.sluice.hazelcast.internal.wire.WireFormat;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Decisions made by the members' entry processors, and the one place that sends them. A decision takes the first of
 * these routes that applies: this node's view of a synchronised key ({@link SyncedKeys}); a leased slice of the key
 * on this node ({@link Slices}); when batching is on, a same-key batch, or with member batching on and a key another
 * member owns, a batch to that member ({@link MemberBatchTask}: one message for every key it owns, while another is
 * in flight to it); else one processor call. The synchronised mode, leasing and batching are used only while every
 * member reads their wire format version ({@code wireVersion}); peek, record, reserve and reset are one call each.
 *
 * <p>Asynchronous answers complete on the Hazelcast thread that receives them; calls that follow a completed one
 * start on {@link Batcher#SENDERS}. Thread-safe. Design: {@code docs/design/leasing.md},
 * {@code docs/design/batching.md}, {@code docs/design/synchronised.md}.
 */
public final class ProcessorDecider implements CounterStore, Slices.OwnerCalls {

    /** Batched calls in flight on one key: one decided by the owner while the next gathers. */
    private static final int CALLS_IN_FLIGHT_PER_KEY = 2;
    /**
     * Messages in flight to one member: one, so that a key's requests reach its owner in arrival order (two messages
     * in flight could run on two of the owner's executor threads in either order).
     */
    private static final int MESSAGES_IN_FLIGHT_PER_MEMBER = 1;
    /** The executor service that runs member batches: not the wire-version probes', so neither waits on the other. */
    private static final String MEMBER_BATCH_EXECUTOR = "sluice-batches";

    private final HazelcastInstance instance;
    private final String mapName;
    private final IntSupplier wireVersion;
    /** Got on first use: a client that has not yet connected cannot make the proxy. */
    private volatile @Nullable ProcessorCalls calls;
    private final Optional<Batcher<String>> sameKey;
    private final Optional<Batcher<Member>> perMember;
    private final Optional<Slices> slices;
    /** The synchronised keys' views; its flusher starts with the first view. */
    private final SyncedKeys syncs;
    /** Calls that carried more than one decision. */
    private final LongAdder batchesSent = new LongAdder();
    /** Member batches that carried decisions on more than one key. */
    private final LongAdder memberBatchesSent = new LongAdder();

    /** The batching settings: the most requests one call carries, and whether keys of one member go together. */
    public record Batching(int maxBatch, boolean perMember) {
    }

    /** The leasing settings; see {@link Slices#Slices}. */
    public record Leasing(TimeSource time, Duration lifetime, double hotKeyRate, long maxSlice, int maxKeys) {
    }

    /** The synchronised mode's settings; see {@link SyncedKeys#SyncedKeys}. */
    public record Syncing(TimeSource time, Duration interval, int maxKeys) {
    }

    /**
     * @param wireVersion the newest wire format version every member reads, as last found
     * @param batching empty turns batching off
     * @param leasing empty turns leasing off
     */
    public ProcessorDecider(HazelcastInstance instance, String mapName, IntSupplier wireVersion,
                            Optional<Batching> batching, Optional<Leasing> leasing, Syncing syncing) {
        CallbackExecutor.avoidThreadPerTask();
        this.instance = instance;
        this.mapName = mapName;
        this.wireVersion = wireVersion;
        this.sameKey = batching.map(given -> new Batcher<>(this::sendOnKey, given.maxBatch(), CALLS_IN_FLIGHT_PER_KEY));
        this.perMember = batching.filter(Batching::perMember)
                .map(given -> new Batcher<>(this::sendToMember, given.maxBatch(),
                        MESSAGES_IN_FLIGHT_PER_MEMBER));
        this.slices = leasing.map(given -> new Slices(this, given.time(), given.lifetime(), given.hotKeyRate(),
                given.maxSlice(), given.maxKeys()).sweeping());
        this.syncs = new SyncedKeys(new SyncOwners(instance, mapName,
                (key, processor) -> calls().submit(key, processor)), syncing.time(),
                syncing.interval(), syncing.maxKeys());
    }

    @Override
    public Decision apply(String key, Policy policy, long cost, long maxDelayNanos) {
        if (syncs(policy)) {
            return await(syncs.decide(key, policy, cost));
        }
        if (leases(policy)) {
            SliceAnswer answer = slices.orElseThrow().grant(key, policy, cost);
            if (!(answer instanceof SliceAnswer.ToOwner)) {
                return await(follow(answer, key, policy, cost, maxDelayNanos));
            }
        }
        if (batches()) {
            return await(batched(key, policy, cost, maxDelayNanos));
        }
        return map().executeOnKey(key, new ApplyProcessor(policy, cost, maxDelayNanos)).decision();
    }

    /**
     * Completes when the owning member answers, on the Hazelcast thread that receives the answer (or at once when
     * granted from a slice).
     */
    @Override
    public CompletionStage<Decision> applyAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        if (syncs(policy)) {
            return syncs.decide(key, policy, cost);
        }
        return leases(policy) ? follow(slices.orElseThrow().grant(key, policy, cost), key, policy, cost, maxDelayNanos)
                : unleased(key, policy, cost, maxDelayNanos);
    }

    /** The decision {@code answer} leads to; a request that waited for a slice in vain is sent from a pool thread. */
    private CompletableFuture<Decision> follow(SliceAnswer answer, String key, Policy policy, long cost,
                                               long maxDelayNanos) {
        if (answer instanceof SliceAnswer.Decided decided) {
            return decided.decision();
        }
        if (answer instanceof SliceAnswer.Waiting waiting) {
            return waiting.slice().thenCompose(next -> !(next instanceof SliceAnswer.ToOwner)
                    ? follow(next, key, policy, cost, maxDelayNanos)
                    : CompletableFuture.supplyAsync(() -> unleased(key, policy, cost, maxDelayNanos),
                            Batcher.SENDERS).thenCompose(Function.identity()));
        }
        return unleased(key, policy, cost, maxDelayNanos);
    }

    /** The decision on the owner: batched when batching is on and every member reads batches, else one call. */
    private CompletableFuture<Decision> unleased(String key, Policy policy, long cost, long maxDelayNanos) {
        if (batches()) {
            return batched(key, policy, cost, maxDelayNanos);
        }
        return calls().submit(key, new ApplyProcessor(policy, cost, maxDelayNanos))
                .thenApply(DecisionResult::decision);
    }

    /** Leasing is on, the policy asks for it, and every member reads slices. Leasing algorithms do not queue. */
    private boolean leases(Policy policy) {
        return slices.isPresent() && policy.leased() && wireVersion.getAsInt() >= WireFormat.LEASES;
    }

    /** The policy asks to be synchronised and every member reads the synchronised mode's types. */
    private boolean syncs(Policy policy) {
        return policy.synced() && wireVersion.getAsInt() >= WireFormat.SYNCS;
    }

    private boolean batches() {
        return sameKey.isPresent() && wireVersion.getAsInt() >= WireFormat.BATCHES;
    }

    /**
     * A batched decision: with the other keys of the member that owns {@code key} when member batching is on, another
     * member owns the key and every member reads member batches; else with the other requests on {@code key} (a key
     * this member owns is decided here, with no message to batch; an owner not known yet, during a migration, is found
     * by the call).
     */
    private CallAnswer<Decision> batched(String key, Policy policy, long cost, long maxDelayNanos) {
        if (perMember.isPresent() && wireVersion.getAsInt() >= WireFormat.MEMBER_BATCHES) {
            Member owner = instance.getPartitionService().getPartition(key).getOwner();
            if (owner != null && !owner.localMember()) {
                return perMember.orElseThrow().submit(owner, key, policy, cost, maxDelayNanos);
            }
        }
        return sameKey.orElseThrow().submit(key, key, policy, cost, maxDelayNanos);
    }

    /**
     * One message to {@code owner} for {@code requests}, completing each request's answer: a {@link MemberBatchTask}
     * when they name more than one key and the members read it, else the call {@link #sendOnKey} makes. When the owner
     * has left, or the task could not reach it, each key's requests are sent again on their own (as Hazelcast resends
     * a single call): the new owner decides them, and a request the old owner had already counted stays counted
     * (never admitted twice, possibly counted twice).
     */
    private CompletableFuture<?> sendToMember(Member owner, List<Batcher.Request> requests) {
        Map<String, List<Batcher.Request>> byKey = new LinkedHashMap<>();
        for (Batcher.Request request : requests) {
            byKey.computeIfAbsent(request.key(), k -> new ArrayList<>(1)).add(request);
        }
        if (byKey.size() == 1 || wireVersion.getAsInt() < WireFormat.MEMBER_BATCHES) {
            return sendEachKey(byKey);
        }
        memberBatchesSent.increment();
        List<Batcher.Request> ordered = new ArrayList<>(requests.size());
        byKey.values().forEach(ordered::addAll);
        CompletableFuture<BatchResult> call = new CompletableFuture<>();
        try {
            instance.getExecutorService(MEMBER_BATCH_EXECUTOR).submitToMember(
                    new MemberBatchTask(mapName, List.copyOf(byKey.keySet()), List.copyOf(byKey.values())), owner,
                    new ExecutionCallback<>() {
                        @Override
                        public void onResponse(BatchResult response) {
                            call.complete(response);
                        }

                        @Override
                        public void onFailure(Throwable t) {
                            call.completeExceptionally(t);
                        }
                    });
        } catch (RuntimeException e) {
            call.completeExceptionally(e);
        }
        return call.handle((result, failure) -> {
            if (failure == null) {
                answerAll(ordered, result);
                return call.thenApply(Object.class::cast);
            }
            return ownerGone(failure) ? sendEachKey(byKey).thenApply(Object.class::cast)
                    : call.thenApply(Object.class::cast);
        }).thenCompose(Function.identity());
    }

    /** Sends each key's requests in a call of its own ({@link #sendOnKey}), completing when all have answered. */
    private CompletableFuture<?> sendEachKey(Map<String, List<Batcher.Request>> byKey) {
        CompletableFuture<?>[] sent = new CompletableFuture<?>[byKey.size()];
        int i = 0;
        for (Map.Entry<String, List<Batcher.Request>> key : byKey.entrySet()) {
            sent[i++] = sendOnKey(key.getKey(), key.getValue());
        }
        return sent.length == 1 ? sent[0] : CompletableFuture.allOf(sent);
    }

    /** Whether a member batch failed because its member left or could not be reached, before or while running it. */
    private static boolean ownerGone(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause instanceof RetryableException;
    }

    /** Completes each of {@code requests} with its decision in {@code result}, which answers them in this order. */
    private static void answerAll(List<Batcher.Request> requests, BatchResult result) {
        if (result.size() != requests.size()) {
            throw new IllegalStateException("a batch of " + requests.size() + " got " + result.size()
                    + " decisions");
        }
        for (int i = 0; i < requests.size(); i++) {
            Batcher.Request request = requests.get(i);
            request.answer().complete(result.decision(i, request.policy()));
        }
    }

    /**
     * One call on {@code key} for {@code requests}, completing each request's answer: a batch processor when there are
     * several and the members read it (they may have stopped since the requests were queued: a member of an older
     * release joined), else one processor each.
     */
    private CompletableFuture<?> sendOnKey(String key, List<Batcher.Request> requests) {
        if (requests.size() > 1 && wireVersion.getAsInt() >= WireFormat.BATCHES) {
            batchesSent.increment();
            return calls().submit(key, new BatchApplyProcessor(requests))
                    .thenAccept(result -> answerAll(requests, result));
        }
        CompletableFuture<?>[] sent = new CompletableFuture<?>[requests.size()];
        for (int i = 0; i < sent.length; i++) {
            Batcher.Request request = requests.get(i);
            sent[i] = calls().submit(key,
                    new ApplyProcessor(request.policy(), request.cost(), request.maxDelayNanos()))
                    .whenComplete((result, failure) -> {
                        if (failure == null) {
                            request.answer().complete(result.decision());
                        } else {
                            request.answer().completeExceptionally(failure);
                        }
                    });
        }
        return sent.length == 1 ? sent[0] : CompletableFuture.allOf(sent);
    }

    /**
     * Like {@link #applyAsync}, on the key's owner ({@link CountProcessor}), answering the owner's time of the count,
     * by which a grant is taken back there ({@link UndoProcessor}, {@link Policy#undo}), whichever member owns the key
     * by then. Counted as {@link #applyAsync} counts, and kept ({@link Counted#kept}), while a member does not read
     * wire version 4 and for a leased policy (its grants come from this node's slices): a request one rule rejects
     * then stays counted by the others, as before. Never batched. See {@code docs/design/all-or-nothing.md}.
     */
    @Override
    public CompletionStage<Counted> countAsync(String key, Policy policy, long cost, long maxDelayNanos) {
        if (policy.leased() || policy.synced() || cost == 0 || wireVersion.getAsInt() < WireFormat.UNDOS) {
            return applyAsync(key, policy, cost, maxDelayNanos).thenApply(Counted::kept);
        }
        return calls().submit(key, new CountProcessor(policy, cost, maxDelayNanos)).thenApply(answer ->
                !answer.decision().allowed() ? Counted.kept(answer.decision())
                        : Counted.undoable(answer.decision(), () -> calls()
                                .submit(key, new UndoProcessor(policy, cost, answer.countedAtNanos()))
                                .thenApply(DecisionResult::decision)));
    }

    @Override
    public CompletableFuture<SliceResult> take(String key, Policy policy, long cost, long wanted, long lifetimeNanos) {
        return calls().submit(key, new TakeSliceProcessor(policy, cost, wanted, lifetimeNanos));
    }

    @Override
    public CompletableFuture<?> giveBack(String key, Policy policy, long permits, long countedAtNanos) {
        return calls().submit(key, new GiveBackProcessor(policy, permits, countedAtNanos));
    }

    /** Waits for an asynchronous decision, throwing what the call threw, as a synchronous call does. */
    private static Decision await(CompletableFuture<Decision> answer) {
        try {
            return answer.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException thrown) {
                throw thrown;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    @Override
    public Decision peek(String key, Policy policy, long cost) {
        return map().executeOnKey(key, new PeekProcessor(policy, cost)).decision();
    }

    @Override
    public CompletionStage<Decision> peekAsync(String key, Policy policy, long cost) {
        return calls().submit(key, new PeekProcessor(policy, cost)).thenApply(DecisionResult::decision);
    }

    @Override
    public Decision record(String key, Policy policy, long cost, long ageNanos) {
        return map().executeOnKey(key, new RecordProcessor(policy, cost, ageNanos)).decision();
    }

    @Override
    public CompletionStage<Decision> recordAsync(String key, Policy policy, long cost, long ageNanos) {
        return calls().submit(key, new RecordProcessor(policy, cost, ageNanos)).thenApply(DecisionResult::decision);
    }

    @Override
    public Decision reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        return map().executeOnKey(key, new ReserveProcessor(policy, cost, maxWaitNanos)).decision();
    }

    @Override
    public CompletionStage<Decision> reserveAsync(String key, Policy policy, long cost, long maxWaitNanos) {
        return calls().submit(key, new ReserveProcessor(policy, cost, maxWaitNanos))
                .thenApply(DecisionResult::decision);
    }

    /** Deletes the key's entry (and its backup), atomically with the processors on that key. */
    @Override
    public void reset(String key) {
        map().delete(key);
    }

    /** The counters map; made on first use. */
    public IMap<String, CounterState> map() {
        return calls().map();
    }

    private ProcessorCalls calls() {
        ProcessorCalls known = calls;
        if (known == null) {
            known = new ProcessorCalls(instance.getMap(mapName));
            calls = known;
        }
        return known;
    }

    /** How many calls carried more than one decision on one key, since the start. */
    public long batchesSent() {
        return batchesSent.sum();
    }

    /** How many messages carried decisions on more than one key to the member that owns them, since the start. */
    public long memberBatchesSent() {
        return memberBatchesSent.sum();
    }

    /** This node's slices, when leasing is on. */
    public Optional<Slices> slices() {
        return slices;
    }

    /** This node's synchronised keys. */
    public SyncedKeys syncs() {
        return syncs;
    }

    /**
     * Gives this node's unused window slices back to their owners and sends the synchronised keys' waiting hits
     * (waiting a few seconds at most), if it can.
     */
    @Override
    public void close() {
        if (instance.getLifecycleService().isRunning()) {
            slices.ifPresent(Slices::close);
            syncs.close();
        } else {
            syncs.stop();
        }
    }
}
