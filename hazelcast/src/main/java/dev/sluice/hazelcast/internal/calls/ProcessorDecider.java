package dev.sluice.hazelcast.internal.calls;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import dev.sluice.Decision;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.hazelcast.internal.sync.SliceVisit;
import dev.sluice.hazelcast.internal.sync.SyncedKeys;
import dev.sluice.hazelcast.internal.wire.BatchApplyProcessor;
import dev.sluice.hazelcast.internal.wire.BatchResult;
import dev.sluice.hazelcast.internal.wire.CallAnswer;
import dev.sluice.hazelcast.internal.wire.CallbackExecutor;
import dev.sluice.hazelcast.internal.wire.CounterCommand;
import dev.sluice.hazelcast.internal.wire.CounterState;
import dev.sluice.hazelcast.internal.wire.DecisionResult;
import dev.sluice.hazelcast.internal.wire.PeekProcessor;
import dev.sluice.hazelcast.internal.wire.Shard;
import dev.sluice.hazelcast.internal.wire.ShardAnswer;
import dev.sluice.hazelcast.internal.wire.ShardCall;
import dev.sluice.hazelcast.internal.wire.SliceResult;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Decisions made by the members' entry processors, and the one place that sends them: the route per rule. A decision
 * takes the first of these routes that applies: a synchronised policy, this node's view of the key
 * ({@link SyncedKeys}, whose keys live in shards of the map {@code synced-<counters map>}); a leased policy, a slice
 * of the key on this node ({@link Slices}); when batching is on, a same-key batch; else one processor call. Peek,
 * record, reserve and reset are one call each (a synchronised key's record is a hit of its view, its peek its view's
 * when there is one).
 *
 * <p>Asynchronous answers complete on the Hazelcast thread that receives them; calls that follow a completed one
 * start on {@link Batcher#SENDERS}. Thread-safe. Design: {@code docs/design/leasing.md},
 * {@code docs/design/batching.md}, {@code docs/design/synchronised.md}.
 */
public final class ProcessorDecider implements CounterStore, Slices.OwnerCalls {

    /** Batched calls in flight on one key: one decided by the owner while the next gathers. */
    private static final int CALLS_IN_FLIGHT_PER_KEY = 2;
    /** What the synchronised keys' map's name puts before the counters map's. */
    public static final String SYNCED_MAP_PREFIX = "synced-";

    private final HazelcastInstance instance;
    private final String mapName;
    /** Got on first use: a client that has not yet connected cannot make the proxy. */
    private volatile @Nullable ProcessorCalls<CounterState> calls;
    private volatile @Nullable ProcessorCalls<Shard> shardCalls;
    private final Optional<Batcher<String>> sameKey;
    /** This node's slices: of the keys of leased rules when leasing is on, and of hot synchronised keys. */
    private final Slices slices;
    private final boolean leasedRules;
    /** The synchronised keys' views; its flusher starts with the first view. */
    private final SyncedKeys syncs;
    /** Calls that carried more than one decision. */
    private final LongAdder batchesSent = new LongAdder();

    /** The batching settings: the most requests one call carries. */
    public record Batching(int maxBatch) {
    }

    /** The leasing settings; see {@link Slices#Slices}. */
    public record Leasing(TimeSource time, Duration lifetime, double hotKeyRate, long maxSlice, int maxKeys) {
    }

    /** The synchronised mode's settings; see {@link SyncedKeys#SyncedKeys}. */
    public record Syncing(TimeSource time, Duration interval, OptionalLong budget, int maxKeys) {
    }

    /**
     * @param batching empty turns batching off
     * @param leasedRules whether the keys of leased rules are granted from slices ({@code StoreOptions.leasing()})
     */
    public ProcessorDecider(HazelcastInstance instance, String mapName, Optional<Batching> batching, Leasing leasing,
                            boolean leasedRules, Syncing syncing) {
        CallbackExecutor.avoidThreadPerTask();
        this.instance = instance;
        this.mapName = mapName;
        this.sameKey = batching.map(given -> new Batcher<>(this::sendOnKey, given.maxBatch(), CALLS_IN_FLIGHT_PER_KEY));
        this.slices = new Slices(this, leasing.time(), leasing.lifetime(), leasing.hotKeyRate(), leasing.maxSlice(),
                leasing.maxKeys()).sweeping();
        this.leasedRules = leasedRules;
        this.syncs = new SyncedKeys(this::onShard, syncing.time(), syncing.interval(), syncing.budget(),
                syncing.maxKeys(), this::membersSeen);
    }

    /** Runs {@code processors} on keys of shard {@code shard}, in one call on its owner. */
    private CompletableFuture<ShardAnswer> onShard(int shard, List<String> keys,
                                                   List<? extends EntryProcessor<String, CounterState, ?>> processors) {
        return shardCalls().submit(ShardCall.shardKey(shard), new ShardCall(keys, processors));
    }

    /** The members this node's instance sees now; 1 while it sees none (a client between connections). */
    private int membersSeen() {
        try {
            return Math.max(1, instance.getCluster().getMembers().size());
        } catch (RuntimeException e) {
            return 1;
        }
    }

    /**
     * Decides, counts, peeks, records, reserves and resets; completes when the owning member answers, on the Hazelcast
     * thread that receives the answer (or at once when decided here: from a synchronised key's view, or a leased
     * slice). A reset deletes the key's entry (and its backup), atomically with the processors on that key, and
     * forgets it as a synchronised key (its views on this node, its counters in its shard). Estimates, settles and
     * permits are the Hazelcast store's (reservations and permit calls), and fail here.
     */
    @Override
    @SuppressWarnings("unchecked") // each branch answers its command's own type
    public <R> CompletionStage<R> executeAsync(String key, Command<R> command) {
        if (command instanceof Command.Decide decide) {
            return (CompletionStage<R>) route(key, decide.policy(), decide.cost(), decide.maxDelayNanos());
        } else if (command instanceof Command.Count count) {
            return (CompletionStage<R>) count(key, count.policy(), count.cost(), count.maxDelayNanos());
        } else if (command instanceof Command.Peek peek) {
            return (CompletionStage<R>) peek(key, peek.policy(), peek.cost());
        } else if (command instanceof Command.Record record) {
            return (CompletionStage<R>) record(key, record.policy(), record.cost(), record.ageNanos());
        } else if (command instanceof Command.Reserve reserve) {
            return (CompletionStage<R>) reserve(key, reserve.policy(), reserve.cost(), reserve.maxWaitNanos());
        } else if (command instanceof Command.Reset) {
            map().delete(key);
            return (CompletionStage<R>) syncs.forget(key).thenRun(() -> { });
        }
        return CompletableFuture.failedFuture(new IllegalArgumentException("the Hazelcast store executes "
                + command.getClass().getSimpleName() + " itself"));
    }

    /** A decision not batched, leased nor synchronised is one blocking call on the owner, not a future joined. */
    @Override
    @SuppressWarnings("unchecked") // a decision answers a Decision
    public <R> R execute(String key, Command<R> command) {
        if (command instanceof Command.Decide decide && !(syncs(decide.policy()) || leases(decide.policy())
                || batches())) {
            return (R) map().executeOnKey(key, CounterCommand.apply(decide.policy(), decide.cost(),
                    decide.maxDelayNanos())).decision();
        }
        return CounterStore.super.execute(key, command);
    }

    /**
     * The route per rule: a synchronised key from this node's view, or from leased slices while it keeps exhausting
     * its budget here (until its owner gives no slice); a leased key from its slices; else on the owner.
     */
    private CompletableFuture<Decision> route(String key, Policy policy, long cost, long maxDelayNanos) {
        if (syncs(policy)) {
            Optional<SliceVisit> visit = leasesWhenHot(policy) ? syncs.enterSlices(key, policy) : Optional.empty();
            if (visit.isPresent()) {
                return hot(key, policy, cost, maxDelayNanos, visit.get());
            }
            return syncs.decide(key, policy, cost, maxDelayNanos);
        }
        if (leases(policy)) {
            return follow(slices.grant(key, policy, cost), () -> unleased(key, policy, cost, maxDelayNanos));
        }
        return unleased(key, policy, cost, maxDelayNanos);
    }

    /**
     * A hot synchronised key's request, granted from leased slices; when its owner gives none, the key cools and the
     * request is decided from its view. It leaves the slices once, when it is decided or goes to the view.
     */
    private CompletableFuture<Decision> hot(String key, Policy policy, long cost, long maxDelayNanos,
                                            SliceVisit visit) {
        try {
            return follow(slices.grant(key, policy, cost), () -> {
                visit.left(true);
                return syncs.decide(key, policy, cost, maxDelayNanos);
            }).whenComplete((decision, failure) -> visit.left(false));
        } catch (RuntimeException e) {
            visit.left(false);
            throw e;
        }
    }

    /**
     * The decision {@code answer} leads to, or {@code otherwise}'s when no slice decides it; a request that waited for
     * a slice in vain goes on from a pool thread (the wait may end on a Hazelcast thread, which may not call).
     */
    private CompletableFuture<Decision> follow(SliceAnswer answer, Supplier<CompletableFuture<Decision>> otherwise) {
        if (answer instanceof SliceAnswer.Decided decided) {
            return decided.decision();
        }
        if (answer instanceof SliceAnswer.Waiting waiting) {
            return waiting.slice().thenCompose(next -> !(next instanceof SliceAnswer.ToOwner)
                    ? follow(next, otherwise)
                    : CompletableFuture.supplyAsync(otherwise, Batcher.SENDERS).thenCompose(Function.identity()));
        }
        return otherwise.get();
    }

    /** The decision on the owner: batched when batching is on and every member reads batches, else one call. */
    private CompletableFuture<Decision> unleased(String key, Policy policy, long cost, long maxDelayNanos) {
        if (batches()) {
            return batched(key, policy, cost, maxDelayNanos);
        }
        return calls().submit(key, CounterCommand.apply(policy, cost, maxDelayNanos))
                .thenApply(DecisionResult::decision);
    }

    /**
     * Leasing is on and the policy asks for it. Leasing algorithms do not queue. A metered
     * policy never leases: its counts are reservations, exact on the owner ({@code docs/design/costs.md}).
     */
    private boolean leases(Policy policy) {
        return leasedRules && policy.leased() && !policy.metered();
    }

    /** A synchronised policy whose hot keys may be leased: its algorithm leases. */
    private boolean leasesWhenHot(Policy policy) {
        return policy.algorithm().leases();
    }

    /**
     * The policy asks to be synchronised. Its keys live only in the shards of the synchronised keys' map: deciding them
     * elsewhere meanwhile would count them twice over, apart. A metered policy is never synchronised: its counts are
     * reservations, exact on the owner in the counters map.
     */
    private boolean syncs(Policy policy) {
        return policy.synced() && !policy.metered();
    }

    private boolean batches() {
        return sameKey.isPresent();
    }

    /** A batched decision: with the other requests on {@code key}. */
    private CallAnswer<Decision> batched(String key, Policy policy, long cost, long maxDelayNanos) {
        return sameKey.orElseThrow().submit(key, key, policy, cost, maxDelayNanos);
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
     * several, else one processor.
     */
    private CompletableFuture<?> sendOnKey(String key, List<Batcher.Request> requests) {
        if (requests.size() > 1) {
            batchesSent.increment();
            return calls().submit(key, new BatchApplyProcessor(requests))
                    .thenAccept(result -> answerAll(requests, result));
        }
        Batcher.Request request = requests.get(0);
        return calls().submit(key, CounterCommand.apply(request.policy(), request.cost(), request.maxDelayNanos()))
                .whenComplete((result, failure) -> {
                    if (failure == null) {
                        request.answer().complete(result.decision());
                    } else {
                        request.answer().completeExceptionally(failure);
                    }
                });
    }

    /**
     * Decides as {@link Command.Decide} does, on the key's owner ({@link CounterCommand#count}), answering the owner's
     * time of the count, by which a grant is taken back there ({@link CounterCommand#undo}, {@link Policy#undo}),
     * whichever member owns the key by then. Counted as a decision is, and kept ({@link Counted#kept}), for a leased
     * policy (its grants come from this node's slices): a request one rule rejects then stays counted by the others.
     * Never batched. See {@code docs/design/all-or-nothing.md}.
     */
    private CompletableFuture<Counted> count(String key, Policy policy, long cost, long maxDelayNanos) {
        if (policy.leased() || policy.synced() || cost == 0) {
            return route(key, policy, cost, maxDelayNanos).thenApply(Counted::kept);
        }
        return calls().submit(key, CounterCommand.count(policy, cost, maxDelayNanos)).thenApply(answer ->
                !answer.decision().allowed() ? Counted.kept(answer.decision())
                        : Counted.undoable(answer.decision(), () -> calls()
                                .submitOnce(key, CounterCommand.undo(policy, cost, answer.countedAtNanos()))
                                .thenApply(DecisionResult::decision)));
    }

    /** A synchronised key's slice is taken from its shard. */
    @Override
    public CompletableFuture<SliceResult> take(String key, Policy policy, long cost, long wanted, long lifetimeNanos) {
        CounterCommand<SliceResult> take = CounterCommand.takeSlice(policy, cost, wanted, lifetimeNanos);
        return syncs(policy) ? syncs.takeSlice(key, policy, take) : calls().submit(key, take);
    }

    /** Sent once ({@link ProcessorCalls#submitOnce}): to a synchronised key's shard, else to its counters. */
    @Override
    public CompletableFuture<?> giveBack(String key, Policy policy, long permits, long countedAtNanos) {
        CounterCommand<DecisionResult> giveBack = CounterCommand.giveBack(policy, permits, countedAtNanos);
        if (!syncs(policy)) {
            return calls().submitOnce(key, giveBack);
        }
        return shardCalls().submitOnce(ShardCall.shardKey(ShardCall.shardOf(key)),
                new ShardCall(List.of(key), List.of(giveBack)));
    }

    /** A synchronised key's peek is its view's, when this node has one (its hits not yet counted included). */
    private CompletableFuture<Decision> peek(String key, Policy policy, long cost) {
        Optional<Decision> viewed = syncs(policy) ? syncs.peek(key, policy, cost) : Optional.empty();
        return viewed.map(CompletableFuture::completedFuture)
                .orElseGet(() -> onOwner(key, policy, new PeekProcessor(policy, cost)));
    }

    /** A synchronised key's record is a hit of this node's view; any other key's, a call on its owner. */
    private CompletableFuture<Decision> record(String key, Policy policy, long cost, long ageNanos) {
        return syncs(policy) ? syncs.record(key, policy, cost, ageNanos)
                : onOwner(key, policy, CounterCommand.record(policy, cost, ageNanos));
    }

    /** A synchronised key's reservation is made on its owner once this node's hits of the key are counted there. */
    private CompletableFuture<Decision> reserve(String key, Policy policy, long cost, long maxWaitNanos) {
        return syncs(policy) ? syncs.reserve(key, policy, cost, maxWaitNanos)
                : onOwner(key, policy, CounterCommand.reserve(policy, cost, maxWaitNanos));
    }

    /**
     * One call of {@code processor} on the key's owner: in the key's shard for a synchronised policy, else on the
     * counters map.
     */
    private CompletableFuture<Decision> onOwner(String key, Policy policy,
                                                EntryProcessor<String, CounterState, DecisionResult> processor) {
        CompletableFuture<DecisionResult> answer = syncs(policy)
                ? syncs.onOwner(key, processor, DecisionResult.class) : calls().submit(key, processor);
        return answer.thenApply(DecisionResult::decision);
    }

    /** The counters map; made on first use. */
    public IMap<String, CounterState> map() {
        return calls().map();
    }

    private ProcessorCalls<CounterState> calls() {
        ProcessorCalls<CounterState> known = calls;
        if (known == null) {
            known = new ProcessorCalls<>(instance.getMap(mapName));
            calls = known;
        }
        return known;
    }

    private ProcessorCalls<Shard> shardCalls() {
        ProcessorCalls<Shard> known = shardCalls;
        if (known == null) {
            known = new ProcessorCalls<>(instance.getMap(SYNCED_MAP_PREFIX + mapName));
            shardCalls = known;
        }
        return known;
    }

    /** How many calls carried more than one decision on one key, since the start. */
    public long batchesSent() {
        return batchesSent.sum();
    }

    /** This node's slices. */
    public Slices slices() {
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
            slices.close();
            syncs.close();
        } else {
            slices.stop();
            syncs.stop();
        }
    }
}
