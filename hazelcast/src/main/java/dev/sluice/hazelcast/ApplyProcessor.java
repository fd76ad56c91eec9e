package dev.sluice.hazelcast;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Durations;
import dev.sluice.internal.state.Transition;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One decision, run on the member that owns the key: decides, counts, and sets the entry's time to live, atomically
 * (Hazelcast runs processors of one partition one at a time).
 *
 * <p>Time to live: Hazelcast keeps an entry's TTL and expiration time in whole seconds, rounding down, so a TTL taken
 * straight from {@link Transition#idleAfterNanos()} could drop a key up to a second before its state is back to full
 * capacity, granting permits early. The TTL is therefore rounded up to whole seconds plus one: a key lives at most two
 * seconds longer than it matters, and never expires while it still restricts.
 *
 * <p>The backup does not run the algorithm again (its result could differ on another member's clock): when the state
 * changed, {@link #getBackupProcessor()} hands Hazelcast a processor that writes the computed state and TTL.
 */
final class ApplyProcessor extends PolicyProcessor {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private transient @Nullable WriteStateProcessor<DecisionResult> backup;

    ApplyProcessor() {
    }

    ApplyProcessor(Policy policy, long cost, long maxDelayNanos) {
        super(policy, cost, maxDelayNanos);
    }

    @Override
    public DecisionResult process(Map.Entry<String, CounterState> entry) {
        Transition transition = decide(entry);
        if (transition.changed()) {
            CounterState next = new CounterState(algorithm(), transition.state());
            long ttlSeconds = ttlSeconds(transition.idleAfterNanos());
            ((ExtendedMapEntry<String, CounterState>) entry).setValue(next, ttlSeconds, TimeUnit.SECONDS);
            backup = new WriteStateProcessor<>(next, ttlSeconds);
        }
        return new DecisionResult(transition.decision());
    }

    /** Whole seconds, rounded up, plus one for Hazelcast's truncation of expiration times; see the class comment. */
    static long ttlSeconds(long idleAfterNanos) {
        return Durations.ceilDiv(idleAfterNanos, NANOS_PER_SECOND) + 1;
    }

    @Override
    public @Nullable EntryProcessor<String, CounterState, DecisionResult> getBackupProcessor() {
        return backup;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerHook.APPLY_PROCESSOR;
    }
}
