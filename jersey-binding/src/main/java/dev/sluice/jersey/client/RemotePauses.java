package dev.sluice.jersey.client;

import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.algorithm.Algorithm;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Durations;
import dev.sluice.store.Command;
import dev.sluice.store.CounterStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/*
 * Why GCRA, and why the capacity changes from call to call: a pause is "this key is paused until T", shared by every
 * worker through the same CounterStore as the counters, with no new store operation. GCRA's whole state is one
 * timestamp, the theoretical arrival time (TAT); with an emission interval of 1 ms it reads as "paused until TAT". The
 * state does not depend on the capacity (only on the interval), so calls with different capacities read and move the
 * same timestamp consistently, and the stores' expiry (when TAT has passed) is the pause's end.
 *
 * - Reading: peek with cost 1 and capacity 1 is rejected exactly while TAT > now, with retry-after TAT - now.
 * - Pausing for d must give TAT = max(TAT, now + d), never the sum of concurrent pauses (every in-flight request gets
 *   the remote's 429, and stacking their Retry-Afters would pause the fleet for far too long). A GCRA apply moves TAT
 *   by cost x 1 ms and is refused when the current wait exceeds (capacity - cost) x 1 ms, so with the remaining pause
 *   r read by a peek, cost = d - r and capacity = d + 1 tick make the apply a compare-and-set: it succeeds (TAT becomes
 *   now + d, to the tick) unless another worker extended the pause since the peek, in which case we read again.
 */

/** Pauses of client-rule keys after a remote {@code 429}, kept in the shared {@link CounterStore}. Thread-safe. */
final class RemotePauses {

    private static final long TICK_NANOS = 1_000_000;
    private static final int MAX_ATTEMPTS = 16;

    private final CounterStore store;
    /** Per rule id, the policy that reads a pause: capacity 1, the same for every check. */
    private final Map<String, Policy> checkPolicies = new ConcurrentHashMap<>();

    RemotePauses(CounterStore store) {
        this.store = store;
    }

    /** The key's pause now: allowed when not paused, otherwise rejected with the remaining pause as retry-after. */
    Decision check(String counterKey, String ruleId) {
        return store.execute(pauseKey(counterKey), Command.peek(checkPolicies.computeIfAbsent(ruleId, id -> policy(1,
                id)), 1));
    }

    /** Pauses the key for every worker until at least {@code pause} from now; a longer pause in force stays. */
    void pause(String counterKey, String ruleId, Duration pause) {
        long ticks = Math.max(1, Durations.ceilDiv(pause.toNanos(), TICK_NANOS));
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Decision current = check(counterKey, ruleId);
            long remaining = current.allowed() ? 0 : current.retryAfterNanos() / TICK_NANOS;
            if (remaining >= ticks) {
                return;
            }
            if (store.execute(pauseKey(counterKey), Command.decide(policy(ticks + 1, ruleId), ticks - remaining,
                    0)).allowed()) {
                return;
            }
        }
    }

    private static String pauseKey(String counterKey) {
        return counterKey + "|paused";
    }

    private static Policy policy(long capacityTicks, String ruleId) {
        Limit tick = Limit.of(1, Duration.ofNanos(TICK_NANOS)).withCapacity(capacityTicks)
                .named(ruleId + ":paused-after-429");
        return Policy.of(Algorithm.GCRA, tick);
    }
}
