package dev.sluice.service;

import static dev.sluice.service.Answers.counts;
import static dev.sluice.service.Problems.call;

import dev.sluice.ConcurrencyLimit;
import dev.sluice.Decision;
import dev.sluice.Limit;
import dev.sluice.TimeSource;
import dev.sluice.algorithm.Policy;
import dev.sluice.internal.Durations;
import dev.sluice.internal.json.JsonObject;
import dev.sluice.store.Command;
import dev.sluice.store.Counted;
import dev.sluice.store.CounterStore;
import dev.sluice.store.FailurePolicyStore;
import jakarta.ws.rs.WebApplicationException;
import java.time.Duration;
import java.util.Optional;

/*
 * A settle takes a one-permit mark under the reservation's nonce first (Command.acquire: a second settle finds it held
 * and changes nothing, which is what makes it idempotent), then Command.settle by the store's reservation id: two
 * calls. The mark is held until the token's lifetime ends (and a minute beyond, for clocks); past it, a settle only
 * charges an excess. A difference is given back only when the mark and the reservation are both the store's own (not
 * a failure policy's fallback, which holds them in one instance only), and a give-back that failed or timed out keeps
 * its mark: it may have been given back, so a retry gives nothing back again. An excess that failed releases its
 * mark: charged twice at worst.
 */

/**
 * Settles verified reservations at their actual cost: an excess charged as a debt, a difference given back at most
 * once however settles are retried and through whichever instances ({@code docs/design/costs.md}). Thread-safe.
 */
final class Settlements {

    /** How far apart the clocks of the service's instances may be for a settle's mark to outlive its token: 1 min. */
    private static final long CLOCK_MARGIN_NANOS = Duration.ofMinutes(1).toNanos();

    private final CounterStore store;
    private final TimeSource time;

    Settlements(CounterStore store, TimeSource time) {
        this.store = store;
        this.time = time;
    }

    /**
     * Settles {@code held}, a reservation of {@code entry}'s {@code units}, at {@code actual}: {@code answer} with
     * whether it was settled before, the debt, and the limit and remaining after it.
     *
     * @throws WebApplicationException 503 when the store failed (an excess is then not charged and a retry charges
     *     it; a difference may have been given back and a retry gives nothing back)
     */
    String settle(LimitsFile.Entry entry, Tokens.Reservation held, Policy units, long actual, JsonObject answer) {
        long leftNanos = held.expiresAtNanos() - time.nanos();
        if (leftNanos <= 0) {
            // No mark outlives the token: an excess is charged (a repeat charges it again), nothing is given back.
            Decision after = chargeOnly(held, units, actual);
            return settledAnswer(answer.put("expired", true), held, actual, after);
        }
        Counted mark = call(() -> store.executeAsync(held.storeKey() + "|settled|" + held.nonce(),
                Command.acquire(settledMark(entry, leftNanos))).toCompletableFuture().join());
        Decision marked = mark.decision();
        if (!marked.allowed() && !marked.storeUnavailable()) {
            return answer.put("alreadySettled", true).toString();
        }
        boolean guarded = marked.allowed() && storesOwn(mark.permit()) && storesOwn(held.storeReservation());
        Decision after;
        try {
            if (guarded) {
                after = call(() -> store.executeAsync(held.storeKey(), Command.settle(units, held.estimate(), actual,
                        held.storeReservation().orElseThrow())).toCompletableFuture().join());
            } else if (actual < held.estimate() && storesOwn(held.storeReservation())) {
                // The mark is not where the reservation is (the store failed): a give-back now could come twice.
                throw Problems.unavailable();
            } else {
                // A reservation that counted nothing or only in one instance's fallback gives nothing back.
                after = chargeOnly(held, units, actual);
            }
        } catch (WebApplicationException e) {
            // A difference may have been given back before the failure: the mark stays, a retry gives none back. An
            // excess not charged must be, on a retry: the mark goes (a late first charge makes it twice, never less).
            if (marked.allowed() && !(guarded && actual < held.estimate())) {
                mark.giveBack();
            }
            throw e;
        }
        return settledAnswer(answer, held, actual, after);
    }

    /** The settle's answer: not settled before, the debt, and the limit and remaining after it. */
    private static String settledAnswer(JsonObject answer, Tokens.Reservation held, long actual, Decision after) {
        return counts(answer.put("alreadySettled", false).put("debt", Math.max(0, actual - held.estimate())), after,
                after.remaining()).toString();
    }

    /**
     * Charges what {@code actual} exceeds the estimate by, as a request made now; then a bare look at the key (what a
     * record answers is a one-permit request's view).
     */
    private Decision chargeOnly(Tokens.Reservation held, Policy units, long actual) {
        if (actual > held.estimate()) {
            call(() -> store.execute(held.storeKey(), Command.record(units, actual - held.estimate(), 0)));
        }
        return call(() -> store.execute(held.storeKey(), Command.peek(units, 0)));
    }

    /** Whether the store named {@code id} as its own: not empty (a grant that counted nothing), not a fallback's. */
    private static boolean storesOwn(Optional<String> id) {
        return id.isPresent() && !FailurePolicyStore.isFallbackId(id.get());
    }

    /**
     * The mark of a settled reservation: one permit, held while its token can still settle ({@code leftNanos}) and
     * {@link #CLOCK_MARGIN_NANOS} beyond, so that an instance whose clock runs that much behind still finds it.
     */
    private static ConcurrencyLimit settledMark(LimitsFile.Entry entry, long leftNanos) {
        long hold = Math.min(Durations.saturatedAdd(leftNanos, CLOCK_MARGIN_NANOS), Limit.MAX_PERIOD.toNanos());
        return ConcurrencyLimit.of(1, Duration.ofNanos(hold)).named(entry.id() + ":settled");
    }
}
